package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/config"
)

// What a session may never reach names the store's files on SQLite, and on
// PostgreSQL — whose location is a URL, no path at all — the libpq password
// files instead: a session on a PostgreSQL store is confined, not refused.
func TestProtectedPathsNameTheStoresSecretsOnEitherBackend(t *testing.T) {
	env := map[string]string{"HOME": "/home/loop", "PGPASSFILE": "/run/credentials/the-loop-poller.service/pgpass"}
	getenv := func(k string) string { return env[k] }
	cfg := &config.Config{Path: "/etc/the-loop/config.yaml"}
	for _, tc := range []struct {
		name, db      string
		want, wantNot []string
	}{
		{"sqlite", "/var/lib/the-loop/the-loop.db",
			[]string{"/var/lib/the-loop/the-loop.db", "/var/lib/the-loop/the-loop.db-wal", "/etc/the-loop/config.yaml"},
			[]string{"/home/loop/.pgpass"}},
		{"postgres", "postgres://the_loop@db.internal:5432/the_loop",
			[]string{"/run/credentials/the-loop-poller.service/pgpass", "/home/loop/.pgpass", "/etc/the-loop/config.yaml"},
			[]string{"postgres://the_loop@db.internal:5432/the_loop", "postgres://the_loop@db.internal:5432/the_loop-wal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := protectedPaths(cfg, tc.db, getenv)
			for _, p := range tc.want {
				assert.Contains(t, got, p)
			}
			for _, p := range tc.wantNot {
				assert.NotContains(t, got, p)
			}
			for _, p := range got {
				assert.True(t, len(p) > 0 && p[0] == '/', "%q is a path the sandbox policy takes", p)
			}
		})
	}
}
