package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name     string
		db, xdg  string
		wantPath string
	}{
		{"THE_LOOP_DB wins", "/srv/loop/x.db", "/xdg", "/srv/loop/x.db"},
		{"XDG_STATE_HOME", "", "/xdg/state", "/xdg/state/the-loop/the-loop.db"},
		{"home fallback", "", "", filepath.Join(home, ".local", "state", "the-loop", "the-loop.db")},
		{"relative XDG ignored", "", "rel/state", filepath.Join(home, ".local", "state", "the-loop", "the-loop.db")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv(EnvDB, tt.db)
			t.Setenv("XDG_STATE_HOME", tt.xdg)
			assert.Equal(t, tt.wantPath, DefaultPath())
		})
	}
}

func TestDefaultPathNoHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv(EnvDB, "")
	t.Setenv("XDG_STATE_HOME", "")
	assert.Equal(t, "", DefaultPath())
}
