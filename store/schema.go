package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
)

// applicationID marks a file as a the-loop store ("TLOP"), so the store never
// adds its tables to an unrelated SQLite database.
const applicationID = 0x544C4F50

// migration is one schema step. Migrations run in order; migration i moves
// the schema from version i to version i+1 (PRAGMA user_version).
type migration struct {
	version int
	name    string
	stmts   []string // SQLite
	pg      []string // PostgreSQL (schema_pg.go)
}

// migrations is the ordered schema history. A later release appends one
// entry; an applied entry is never edited.
var migrations = []migration{
	{version: 1, name: "initial schema", stmts: []string{
		`CREATE TABLE work_items (
			repo         TEXT NOT NULL CHECK (repo <> ''),
			id           TEXT NOT NULL CHECK (id <> ''),
			loop         TEXT NOT NULL DEFAULT '',
			current_node TEXT NOT NULL DEFAULT '',
			state        BLOB,
			updated_at   TEXT NOT NULL,
			PRIMARY KEY (repo, id)
		) STRICT`,
		`CREATE TABLE node_states (
			repo       TEXT NOT NULL,
			work_item  TEXT NOT NULL,
			node       TEXT NOT NULL CHECK (node <> ''),
			attempts   INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
			outcome    TEXT NOT NULL DEFAULT '',
			entered_at TEXT NOT NULL DEFAULT '',
			exited_at  TEXT NOT NULL DEFAULT '',
			last_block TEXT NOT NULL DEFAULT '',
			forced     INTEGER NOT NULL DEFAULT 0 CHECK (forced IN (0, 1)),
			PRIMARY KEY (repo, work_item, node),
			FOREIGN KEY (repo, work_item) REFERENCES work_items (repo, id) ON DELETE CASCADE
		) STRICT`,
		`CREATE TABLE events (
			seq       INTEGER PRIMARY KEY AUTOINCREMENT,
			repo      TEXT NOT NULL,
			work_item TEXT NOT NULL,
			at        TEXT NOT NULL,
			name      TEXT NOT NULL CHECK (name <> ''),
			node      TEXT NOT NULL DEFAULT '',
			data      TEXT
		) STRICT`,
		`CREATE INDEX events_by_item ON events (repo, work_item, seq)`,
		`CREATE TRIGGER events_no_update BEFORE UPDATE ON events
		 BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END`,
		`CREATE TRIGGER events_no_delete BEFORE DELETE ON events
		 BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END`,
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
	}, pg: pgInitial},
	{version: 2, name: "agent sessions", stmts: sessionsSchema, pg: pgSessions},
	{version: 3, name: "conditional-request cache", stmts: []string{
		`CREATE TABLE http_pages (
			key     TEXT NOT NULL PRIMARY KEY CHECK (key <> ''),
			etag    TEXT NOT NULL CHECK (etag <> ''),
			header  TEXT NOT NULL,
			body    BLOB NOT NULL,
			used_at TEXT NOT NULL
		) STRICT`,
		`CREATE INDEX http_pages_by_use ON http_pages (used_at)`,
	}, pg: pgPages},
	{version: 4, name: "critic runs", stmts: criticRunsSchema, pg: pgCriticRuns},
	{version: 5, name: "dependency reads", stmts: dependencyReadsSchema, pg: pgDependencyReads},
	{version: 6, name: "session stops", stmts: sessionStopsSchema, pg: pgSessionStops},
	{version: 7, name: "session stop requester", stmts: sessionStopsByMigration, pg: pgSessionStopsBy},
	{version: 8, name: "pull request sessions", stmts: sessionPullsSchema, pg: pgSessionPulls},
	{version: 9, name: "session confinement", stmts: sessionConfinementSchema, pg: pgSessionConfinement},
	{version: 10, name: "session usage of every harness", stmts: sessionUsageSchema, pg: pgSessionUsage},
	{version: 11, name: "wakes", stmts: wakesSchema, pg: pgWakes},
	{version: 12, name: "item leases", stmts: leasesSchema, pg: pgLeases},
	{version: 13, name: "MCP HTTP sessions", stmts: mcpSessionsSchema, pg: pgMCPSessions},
}

// SchemaVersion is the schema version this build writes and reads.
func SchemaVersion() int { return len(migrations) }

// queryRower is the read surface shared by *sql.DB, *sql.Conn and *sql.Tx.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// header is what the store reads from a file before trusting it.
type header struct {
	version int
	appID   int64
	objects int
}

func readHeader(ctx context.Context, q queryRower) (header, error) {
	var h header
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&h.version); err != nil {
		return h, fmt.Errorf("read schema version: %w", err)
	}
	if err := q.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&h.appID); err != nil {
		return h, fmt.Errorf("read application id: %w", err)
	}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&h.objects); err != nil {
		return h, fmt.Errorf("read schema: %w", err)
	}
	return h, nil
}

// vet refuses files the store must not touch: another application's
// database, or a schema newer than this build knows.
func (h header) vet(path string) error {
	latest := SchemaVersion()
	if h.appID != 0 && h.appID != applicationID {
		return fmt.Errorf("store %s: not a the-loop database (SQLite application_id %#x); point --db or %s at a the-loop store", path, h.appID, EnvDB)
	}
	if h.appID == 0 && h.version == 0 && h.objects > 0 {
		return fmt.Errorf("store %s: an SQLite database that the-loop did not create (it holds tables but no the-loop schema); refusing to modify it; point --db or %s elsewhere", path, EnvDB)
	}
	if h.version > latest {
		return fmt.Errorf("store %s: schema version %d is newer than version %d, the newest this the-loop knows; upgrade the-loop, or use a different --db", path, h.version, latest)
	}
	return nil
}

// migrate brings the schema at path up to SchemaVersion inside one write
// transaction, so a crash or a concurrent opener never sees half a schema.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	h, err := readHeader(ctx, db)
	if err != nil {
		return describe(path, "open", err)
	}
	if err := h.vet(path); err != nil {
		return err
	}
	latest := SchemaVersion()
	if h.version == latest {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE via _txlock
	if err != nil {
		return describe(path, "migrate", err)
	}
	defer func() { _ = tx.Rollback() }()
	// Re-read under the write lock: another process may have migrated first.
	if h, err = readHeader(ctx, tx); err != nil {
		return describe(path, "migrate", err)
	}
	if err := h.vet(path); err != nil {
		return err
	}
	from := h.version
	if from == latest {
		return nil
	}
	for _, m := range migrations[from:] {
		for _, stmt := range m.stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("store %s: apply migration %d (%s): %w", path, m.version, m.name, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, latest)); err != nil {
		return fmt.Errorf("store %s: record schema version %d: %w", path, latest, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(path, "migrate", err)
	}
	slog.Info("store schema migrated", "path", path, "from", from, "to", latest)
	return nil
}

// vetReadOnly checks a file opened read-only: it must already carry exactly
// the schema this build reads, because a read-only open never migrates.
func vetReadOnly(ctx context.Context, db *sql.DB, path string) error {
	h, err := readHeader(ctx, db)
	if err != nil {
		return describe(path, "open", err)
	}
	if err := h.vet(path); err != nil {
		return err
	}
	latest := SchemaVersion()
	switch {
	case h.version == 0 && h.objects == 0:
		return fmt.Errorf("store %s is empty: %w", path, ErrNoStore)
	case h.version < latest:
		return fmt.Errorf("store %s: schema version %d is older than version %d, which this the-loop reads; %w",
			path, h.version, latest, ErrOlderSchema)
	}
	return nil
}
