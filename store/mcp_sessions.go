package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"
)

// The MCP HTTP sessions of the streamable HTTP transport (clients of the
// protocol's 2025 era carry an Mcp-Session-Id): kept here, every replica of
// `serve --http` on the store knows every session, so a client whose
// requests land on another replica (a restart, a load balancer) goes on in
// its session. Only a digest of the session's owner is kept.

// mcpSessionsSchema is migration 13 on SQLite.
var mcpSessionsSchema = []string{
	`CREATE TABLE mcp_sessions (
		id         TEXT PRIMARY KEY CHECK (id <> ''),
		subject    TEXT NOT NULL,
		created_at TEXT NOT NULL,
		used_ms    INTEGER NOT NULL
	) STRICT`,
	`CREATE INDEX mcp_sessions_by_use ON mcp_sessions (used_ms)`,
}

var pgMCPSessions = []string{
	`CREATE TABLE mcp_sessions (
		id         ` + pgText + ` PRIMARY KEY CHECK (id <> ''),
		subject    ` + pgText + ` NOT NULL,
		created_at ` + pgText + ` NOT NULL,
		used_ms    bigint NOT NULL
	)`,
	`CREATE INDEX mcp_sessions_by_use ON mcp_sessions (used_ms)`,
}

// subjectDigest is what the store keeps of a session's owner.
func subjectDigest(subject string) string {
	sum := sha256.Sum256([]byte("the-loop mcp session\x00" + subject))
	return hex.EncodeToString(sum[:])
}

// PutMCPSession records a new MCP HTTP session owned by subject.
func (s *Store) PutMCPSession(ctx context.Context, id, subject string) error {
	if id == "" {
		return errors.New("record an MCP session: the id is empty")
	}
	now := s.now().UTC()
	if _, err := s.write.ExecContext(ctx, `INSERT INTO mcp_sessions (id, subject, created_at, used_ms) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, id, subjectDigest(subject), stamp(now), now.UnixMilli()); err != nil {
		return describe(s.path, "record an MCP session in", err)
	}
	return nil
}

// MCPSessionOwnedBy reports whether id is a live MCP session owned by
// subject, used within idle (0: no bound).
func (s *Store) MCPSessionOwnedBy(ctx context.Context, id, subject string, idle time.Duration) (bool, error) {
	var digest string
	var used int64
	err := s.read.QueryRowContext(ctx, `SELECT subject, used_ms FROM mcp_sessions WHERE id = ?`, id).Scan(&digest, &used)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, describe(s.path, "read an MCP session from", err)
	}
	if idle > 0 && s.now().Sub(time.UnixMilli(used)) > idle {
		return false, nil
	}
	return digest == subjectDigest(subject), nil
}

// TouchMCPSession records that id was used now.
func (s *Store) TouchMCPSession(ctx context.Context, id string) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE mcp_sessions SET used_ms = ? WHERE id = ?`, s.now().UnixMilli(), id); err != nil {
		return describe(s.path, "record the use of an MCP session in", err)
	}
	return nil
}

// DeleteMCPSession ends id, and every session unused for idle (0: none).
func (s *Store) DeleteMCPSession(ctx context.Context, id string, idle time.Duration) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM mcp_sessions WHERE id = ?`, id); err != nil {
		return describe(s.path, "end an MCP session in", err)
	}
	if idle > 0 {
		if _, err := s.write.ExecContext(ctx, `DELETE FROM mcp_sessions WHERE used_ms < ?`, s.now().Add(-idle).UnixMilli()); err != nil {
			return describe(s.path, "end idle MCP sessions in", err)
		}
	}
	return nil
}
