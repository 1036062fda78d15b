package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
)

// PostgreSQL keeps the same ordered history as SQLite: migration n has a
// statement list for each dialect (migration.pg here), and both move the
// schema to version n. Text columns are COLLATE "C" so they compare and sort
// byte by byte, as SQLite's do, whatever the database's locale; the
// version lives in the_loop_schema, PostgreSQL's stand-in for SQLite's
// user_version and application_id.

// pgText is a text column that compares bytewise.
const pgText = `text COLLATE "C"`

var pgInitial = []string{
	`CREATE TABLE the_loop_schema (
		application text NOT NULL CHECK (application = 'the-loop'),
		version     integer NOT NULL
	)`,
	`INSERT INTO the_loop_schema (application, version) VALUES ('the-loop', 0)`,
	`CREATE FUNCTION the_loop_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
	 BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$`,
	`CREATE TABLE work_items (
		repo         ` + pgText + ` NOT NULL CHECK (repo <> ''),
		id           ` + pgText + ` NOT NULL CHECK (id <> ''),
		loop         ` + pgText + ` NOT NULL DEFAULT '',
		current_node ` + pgText + ` NOT NULL DEFAULT '',
		state        bytea,
		updated_at   ` + pgText + ` NOT NULL,
		PRIMARY KEY (repo, id)
	)`,
	`CREATE TABLE node_states (
		repo       ` + pgText + ` NOT NULL,
		work_item  ` + pgText + ` NOT NULL,
		node       ` + pgText + ` NOT NULL CHECK (node <> ''),
		attempts   bigint NOT NULL DEFAULT 0 CHECK (attempts >= 0),
		outcome    ` + pgText + ` NOT NULL DEFAULT '',
		entered_at ` + pgText + ` NOT NULL DEFAULT '',
		exited_at  ` + pgText + ` NOT NULL DEFAULT '',
		last_block ` + pgText + ` NOT NULL DEFAULT '',
		forced     bigint NOT NULL DEFAULT 0 CHECK (forced IN (0, 1)),
		PRIMARY KEY (repo, work_item, node),
		FOREIGN KEY (repo, work_item) REFERENCES work_items (repo, id) ON DELETE CASCADE
	)`,
	`CREATE TABLE events (
		seq       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		repo      ` + pgText + ` NOT NULL,
		work_item ` + pgText + ` NOT NULL,
		at        ` + pgText + ` NOT NULL,
		name      ` + pgText + ` NOT NULL CHECK (name <> ''),
		node      ` + pgText + ` NOT NULL DEFAULT '',
		data      ` + pgText + `
	)`,
	`CREATE INDEX events_by_item ON events (repo, work_item, seq)`,
	`CREATE TRIGGER events_no_update BEFORE UPDATE ON events
	 FOR EACH ROW EXECUTE FUNCTION the_loop_refuse('events are append-only: UPDATE refused')`,
	`CREATE TRIGGER events_no_delete BEFORE DELETE ON events
	 FOR EACH ROW EXECUTE FUNCTION the_loop_refuse('events are append-only: DELETE refused')`,
}

var pgSessions = []string{
	`CREATE TABLE sessions (
		id              ` + pgText + ` PRIMARY KEY CHECK (id <> ''),
		repo            ` + pgText + ` NOT NULL CHECK (repo <> ''),
		work_item       ` + pgText + ` NOT NULL CHECK (work_item <> ''),
		node            ` + pgText + ` NOT NULL CHECK (node <> ''),
		harness         ` + pgText + ` NOT NULL CHECK (harness <> ''),
		runner          ` + pgText + ` NOT NULL DEFAULT 'process',
		model           ` + pgText + ` NOT NULL DEFAULT '',
		effort          ` + pgText + ` NOT NULL DEFAULT '',
		argv            ` + pgText + ` NOT NULL DEFAULT '[]',
		pid             bigint NOT NULL DEFAULT 0,
		attempt         bigint NOT NULL DEFAULT 1 CHECK (attempt >= 1),
		started_at      ` + pgText + ` NOT NULL,
		ended_at        ` + pgText + ` NOT NULL DEFAULT '',
		exit_status     ` + pgText + ` NOT NULL DEFAULT '',
		transcript      ` + pgText + ` NOT NULL DEFAULT '',
		harness_session ` + pgText + ` NOT NULL DEFAULT '',
		attach          ` + pgText + ` NOT NULL DEFAULT '',
		turns           bigint NOT NULL DEFAULT 0 CHECK (turns >= 0),
		tokens          bigint NOT NULL DEFAULT 0 CHECK (tokens >= 0),
		cost_usd        double precision NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
		state           ` + pgText + ` NOT NULL CHECK (state IN ('running', 'exited', 'stopped', 'timed_out', 'over_budget', 'lost')),
		reason          ` + pgText + ` NOT NULL DEFAULT ''
	)`,
	`CREATE INDEX sessions_by_item ON sessions (repo, work_item, started_at)`,
	`CREATE INDEX sessions_running ON sessions (state) WHERE state = 'running'`,
}

var pgPages = []string{
	`CREATE TABLE http_pages (
		key     ` + pgText + ` NOT NULL PRIMARY KEY CHECK (key <> ''),
		etag    ` + pgText + ` NOT NULL CHECK (etag <> ''),
		header  ` + pgText + ` NOT NULL,
		body    bytea NOT NULL,
		used_at ` + pgText + ` NOT NULL
	)`,
	`CREATE INDEX http_pages_by_use ON http_pages (used_at)`,
}

var pgCriticRuns = []string{
	`CREATE TABLE critic_runs (
		id            ` + pgText + ` PRIMARY KEY CHECK (id <> ''),
		repo          ` + pgText + ` NOT NULL CHECK (repo <> ''),
		work_item     ` + pgText + ` NOT NULL CHECK (work_item <> ''),
		node          ` + pgText + ` NOT NULL DEFAULT '',
		critic        ` + pgText + ` NOT NULL CHECK (critic <> ''),
		prompt_sha256 ` + pgText + ` NOT NULL CHECK (length(prompt_sha256) = 64),
		started_at    ` + pgText + ` NOT NULL CHECK (started_at <> ''),
		ended_at      ` + pgText + ` NOT NULL CHECK (ended_at <> ''),
		exit_status   ` + pgText + ` NOT NULL DEFAULT '',
		truncated     bigint NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
		unavailable   ` + pgText + ` NOT NULL DEFAULT '',
		output_sha256 ` + pgText + ` NOT NULL DEFAULT '',
		output_path   ` + pgText + ` NOT NULL DEFAULT '',
		CHECK (unavailable <> '' OR (exit_status = 'exit 0' AND length(output_sha256) = 64))
	)`,
	`CREATE INDEX critic_runs_by_item ON critic_runs (repo, work_item, started_at)`,
	`CREATE TRIGGER critic_runs_no_update BEFORE UPDATE ON critic_runs
	 FOR EACH ROW EXECUTE FUNCTION the_loop_refuse('critic runs are facts: UPDATE refused')`,
	`CREATE TRIGGER critic_runs_no_delete BEFORE DELETE ON critic_runs
	 FOR EACH ROW EXECUTE FUNCTION the_loop_refuse('critic runs are facts: DELETE refused')`,
}

var pgDependencyReads = []string{
	`CREATE TABLE dependency_reads (
		repo      ` + pgText + ` NOT NULL CHECK (repo <> ''),
		work_item ` + pgText + ` NOT NULL CHECK (work_item <> ''),
		read_at   ` + pgText + ` NOT NULL CHECK (read_at <> ''),
		PRIMARY KEY (repo, work_item)
	)`,
}

var pgSessionStops = []string{
	`CREATE TABLE session_stops (
		session      ` + pgText + ` PRIMARY KEY CHECK (session <> ''),
		repo         ` + pgText + ` NOT NULL CHECK (repo <> ''),
		work_item    ` + pgText + ` NOT NULL CHECK (work_item <> ''),
		node         ` + pgText + ` NOT NULL CHECK (node <> ''),
		reason       ` + pgText + ` NOT NULL DEFAULT '',
		requested_at ` + pgText + ` NOT NULL,
		applied_at   ` + pgText + ` NOT NULL DEFAULT ''
	)`,
	`CREATE INDEX session_stops_by_item ON session_stops (repo, work_item)`,
}

var pgSessionStopsBy = []string{
	`ALTER TABLE session_stops ADD COLUMN requested_by ` + pgText + ` NOT NULL DEFAULT ''`,
}

var pgSessionPulls = []string{
	`ALTER TABLE sessions ADD COLUMN pr bigint NOT NULL DEFAULT 0 CHECK (pr >= 0)`,
	`ALTER TABLE sessions ADD COLUMN pr_repo ` + pgText + ` NOT NULL DEFAULT ''`,
}

// pgSessionConfinement is migration 9 on PostgreSQL.
var pgSessionConfinement = []string{
	`ALTER TABLE sessions ADD COLUMN confinement ` + pgText + ` NOT NULL DEFAULT ''`,
	`ALTER TABLE sessions ADD COLUMN transcript_cut bigint NOT NULL DEFAULT 0 CHECK (transcript_cut >= 0)`,
}

// pgSessionUsage is migration 10 on PostgreSQL.
var pgSessionUsage = []string{
	`ALTER TABLE sessions ADD COLUMN input_tokens bigint NOT NULL DEFAULT 0 CHECK (input_tokens >= 0)`,
	`ALTER TABLE sessions ADD COLUMN output_tokens bigint NOT NULL DEFAULT 0 CHECK (output_tokens >= 0)`,
	`ALTER TABLE sessions ADD COLUMN cost_source ` + pgText + ` NOT NULL DEFAULT '' CHECK (cost_source IN ('', 'reported', 'estimated'))`,
	`ALTER TABLE sessions ADD COLUMN result ` + pgText + ` NOT NULL DEFAULT ''`,
	`ALTER TABLE sessions ADD COLUMN error ` + pgText + ` NOT NULL DEFAULT ''`,
	`UPDATE sessions SET cost_source = 'reported' WHERE cost_usd > 0`,
}

// pgWakes is migration 11 on PostgreSQL: nothing, NOTIFY carries the wakes.
var pgWakes = []string{}

// pgMigrateLock is the advisory lock two openers of a PostgreSQL store
// take before migrating it, so only one migrates.
const pgMigrateLock = applicationID

// pgHeader reads a PostgreSQL store's version: found is false when the
// schema holds no the_loop_schema table, tables counts the tables of the
// current schema.
func pgHeader(ctx context.Context, q queryRower) (version int, found bool, tables int, err error) {
	if err = q.QueryRowContext(ctx, `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil {
		return 0, false, 0, fmt.Errorf("read schema: %w", err)
	}
	var reg sql.NullString
	if err = q.QueryRowContext(ctx, `SELECT to_regclass('the_loop_schema')::text`).Scan(&reg); err != nil {
		return 0, false, 0, fmt.Errorf("read schema: %w", err)
	}
	if !reg.Valid {
		return 0, false, tables, nil
	}
	if err = q.QueryRowContext(ctx, `SELECT version FROM the_loop_schema`).Scan(&version); err != nil {
		return 0, false, tables, fmt.Errorf("read schema version: %w", err)
	}
	return version, true, tables, nil
}

// vetPG refuses a schema the store must not touch.
func vetPG(path string, version int, found bool, tables int) error {
	latest := SchemaVersion()
	switch {
	case !found && tables > 0:
		return fmt.Errorf("store %s: the database's schema holds tables the-loop did not create; refusing to add to it; give the-loop a database (or a schema, with search_path in store.url) of its own", path)
	case version > latest:
		return fmt.Errorf("store %s: schema version %d is newer than version %d, the newest this the-loop knows; upgrade the-loop, or use a different --db", path, version, latest)
	}
	return nil
}

// migratePG brings a PostgreSQL store up to SchemaVersion in one
// transaction, under an advisory lock, so two openers never both migrate
// and nobody sees half a schema.
func migratePG(ctx context.Context, db *sql.DB, path string) error {
	version, found, tables, err := pgHeader(ctx, db)
	if err != nil {
		return describe(path, "open", err)
	}
	if err := vetPG(path, version, found, tables); err != nil {
		return err
	}
	latest := SchemaVersion()
	if found && version == latest {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return describe(path, "migrate", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, pgMigrateLock); err != nil {
		return describe(path, "migrate", err)
	}
	if version, found, tables, err = pgHeader(ctx, tx); err != nil {
		return describe(path, "migrate", err)
	}
	if err := vetPG(path, version, found, tables); err != nil {
		return err
	}
	if found && version == latest {
		return nil
	}
	for _, m := range migrations[version:] {
		for _, stmt := range m.pg {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("store %s: apply migration %d (%s): %w", path, m.version, m.name, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE the_loop_schema SET version = ?`, latest); err != nil {
		return fmt.Errorf("store %s: record schema version %d: %w", path, latest, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(path, "migrate", err)
	}
	slog.Info("store schema migrated", "path", path, "from", version, "to", latest)
	return nil
}

// vetReadOnlyPG checks a PostgreSQL store opened read-only: it must carry
// exactly the schema this build reads.
func vetReadOnlyPG(ctx context.Context, db *sql.DB, path string) error {
	version, found, tables, err := pgHeader(ctx, db)
	if err != nil {
		return describe(path, "open", err)
	}
	if err := vetPG(path, version, found, tables); err != nil {
		return err
	}
	latest := SchemaVersion()
	switch {
	case !found || (version == 0 && tables <= 1):
		return fmt.Errorf("store %s holds no the-loop schema yet: %w", path, ErrNoStore)
	case version < latest:
		return fmt.Errorf("store %s: schema version %d is older than version %d, which this the-loop reads; %w",
			path, version, latest, ErrOlderSchema)
	}
	return nil
}
