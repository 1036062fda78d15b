package store

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault 8: a refused foreign database must not be touched at all. The
// connection used to switch it to WAL before the schema check refused it.
func TestOpenLeavesARefusedForeignDatabaseUntouched(t *testing.T) {
	tests := []struct {
		name  string
		stmts []string
	}{
		{"unmarked tables", []string{`CREATE TABLE photos (id INTEGER)`, `INSERT INTO photos VALUES (1)`}},
		{"other app id", []string{`PRAGMA application_id = 42`, `CREATE TABLE t (x)`}},
		{"newer schema of ours", []string{`PRAGMA application_id = 1414811472`, `PRAGMA user_version = 99`, `CREATE TABLE t (x)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "other.db")
			rawExec(t, path, tt.stmts...)
			before := fileSum(t, path)
			_, err := Open(context.Background(), path)
			require.Error(t, err)
			assert.Equal(t, before, fileSum(t, path), "the refused file is byte for byte unchanged")
			assert.Equal(t, byte(1), journalFormat(t, path), "the refused file stays in rollback-journal mode")
			assert.NoFileExists(t, path+"-wal")
		})
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(data)
}

// journalFormat is the file-format write version in the SQLite header:
// 1 for rollback journal, 2 for WAL.
func journalFormat(t *testing.T, path string) byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(data), 19)
	return data[18]
}
