package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The PostgreSQL backend: the same Store, its SQL through pgx's database/sql
// adapter (stdlib), with the store's '?' placeholders rebound to '$n' on
// the way to the server, so one query text serves both backends. Native
// pgx is used only for what database/sql cannot do: LISTEN (the wakes).

// pgConns is the connection pool size of a PostgreSQL store.
const pgConns = 8

// IsURL reports whether loc names a PostgreSQL store (postgres:// or
// postgresql://) rather than a SQLite file.
func IsURL(loc string) bool {
	l := strings.ToLower(strings.TrimSpace(loc))
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// checkLocation refuses a location that is a URL of another kind
// (mysql://…, sqlite://…): a SQLite store is named by a file path.
func checkLocation(loc string) error {
	scheme, _, ok := strings.Cut(loc, "://")
	if !ok || IsURL(loc) || strings.ContainsAny(scheme, "/\\.") {
		return nil
	}
	shown := "(an unparsable URL)"
	if u, err := url.Parse(loc); err == nil {
		shown = u.Redacted()
	}
	return fmt.Errorf("store %s: not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE, or a SQLite file's path", shown)
}

// Redact returns loc fit for a message or a log line: a PostgreSQL URL
// with its password replaced by "xxxxx" (a path is returned as is).
func Redact(loc string) string {
	if !IsURL(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "postgres://(an unparsable URL)"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// WithoutPassword returns loc without the password a PostgreSQL URL
// carries (in its user part or its query), for a place a secret must not
// reach, such as a launched session's MCP config: the password then comes
// from the libpq password file (PGPASSFILE, ~/.pgpass) or PGPASSWORD.
func WithoutPassword(loc string) string {
	if !IsURL(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// pgBackend is what a PostgreSQL store holds besides its pool.
type pgBackend struct {
	cfg *pgx.ConnConfig
	// channel is the NOTIFY channel of the wakes: one per schema, so two
	// stores in one database never wake each other.
	channel string
}

// openPostgres opens the store at the PostgreSQL URL loc: read-write
// (migrating the schema) or read-only (default_transaction_read_only, never
// migrating).
func openPostgres(ctx context.Context, loc string, readOnly bool, o options) (*Store, error) {
	name := Redact(loc)
	cfg, err := pgx.ParseConfig(loc)
	if err != nil {
		return nil, fmt.Errorf("store %s: %v; give store.url (or --db) as postgres://USER@HOST:PORT/DATABASE?sslmode=…", name, redactErr(err, loc))
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "the-loop"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(pgConns)
	db.SetMaxIdleConns(pgConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &Store{path: name, opts: o, now: time.Now, readOnly: readOnly, pg: &pgBackend{cfg: cfg}, write: db, read: db}
	if readOnly {
		s.write = nil
	}
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, describe(name, "open", err)
	}
	var current sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&current); err != nil {
		_ = db.Close()
		return nil, describe(name, "open", err)
	}
	if !current.Valid {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: no schema of search_path %q exists; create it (CREATE SCHEMA …) or name one that does in store.url",
			name, cfg.RuntimeParams["search_path"])
	}
	schema := current.String
	s.pg.channel = wakeChannel
	if schema != "public" {
		s.pg.channel = wakeChannel + "_" + schema
	}
	if readOnly {
		err = vetReadOnlyPG(ctx, db, name)
	} else {
		err = migratePG(ctx, db, name)
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// redactErr is err's text without the password of loc.
func redactErr(err error, loc string) string {
	msg := err.Error()
	if u, perr := url.Parse(loc); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}

// lockItem serialises the writers of one item on PostgreSQL, as SQLite's
// single write lock does: a transaction-scoped advisory lock, released at
// commit or rollback (so a pool may hand the connection on).
func (s *Store) lockItem(ctx context.Context, tx *sql.Tx, repo, id string) error {
	if s.pg == nil {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, repo+"\n"+id); err != nil {
		return describe(s.path, "lock the item in", err)
	}
	return nil
}

// notify posts a wake with NOTIFY; it reaches listeners on commit, which
// for this statement alone is at once.
func (pg *pgBackend) notify(ctx context.Context, s *Store, ref string) error {
	if _, err := s.write.ExecContext(ctx, `SELECT pg_notify(?, ?)`, pg.channel, ref); err != nil {
		return describe(s.path, "post a wake to", err)
	}
	return nil
}

// wakeChannel is the NOTIFY channel of the wakes (of the public schema;
// another schema's is suffixed with its name).
const wakeChannel = "the_loop_wake"

// pgListener is the one LISTEN connection of a PostgreSQL store.
type pgListener struct {
	cfg     *pgx.ConnConfig
	channel string
	path    string
	mu      sync.Mutex
	conn    *pgx.Conn
}

// listen connects and LISTENs now, so a wake posted after Wakes returns is
// never missed.
func (pg *pgBackend) listen(ctx context.Context, s *Store) (*pgListener, error) {
	l := &pgListener{cfg: pg.cfg, channel: pg.channel, path: s.path}
	if err := l.connect(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *pgListener) connect(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return describe(l.path, "listen for wakes in", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.channel}.Sanitize()); err != nil {
		_ = conn.Close(context.Background())
		return describe(l.path, "listen for wakes in", err)
	}
	l.mu.Lock()
	l.conn = conn
	l.mu.Unlock()
	return nil
}

// run delivers notifications until ctx ends; a dropped connection is
// reconnected with backoff, and listeners then get WakeAll for what they
// may have missed.
func (l *pgListener) run(ctx context.Context, h *wakeHub) {
	defer func() {
		l.mu.Lock()
		if l.conn != nil {
			_ = l.conn.Close(context.Background())
		}
		l.mu.Unlock()
	}()
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		l.mu.Lock()
		conn := l.conn
		l.mu.Unlock()
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			if err := l.connect(ctx); err != nil {
				backoff = min(2*backoff, 10*time.Second)
				continue
			}
			backoff = 100 * time.Millisecond
			h.deliver(WakeAll)
			continue
		}
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			l.mu.Lock()
			_ = l.conn.Close(context.Background())
			l.conn = nil
			l.mu.Unlock()
			continue
		}
		h.deliver(n.Payload)
	}
}

// rebindConnector hands database/sql pgx connections that accept the
// store's '?' placeholders.
type rebindConnector struct{ inner driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("postgres: unexpected connection type %T", conn)
	}
	return &rebindConn{Conn: sc}, nil
}

func (c rebindConnector) Driver() driver.Driver { return c.inner.Driver() }

// rebindConn is a pgx connection whose queries are rebound.
type rebindConn struct{ *stdlib.Conn }

func (c *rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c *rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

var rebound sync.Map // query text → its rebound text

// rebind turns the store's '?' placeholders into PostgreSQL's $1, $2, …,
// leaving quoted strings, quoted names, dollar-quoted bodies and comments
// alone.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	if r, ok := rebound.Load(q); ok {
		return r.(string)
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) && q[j] != c {
				j++
			}
			b.WriteString(q[i:min(j+1, len(q))])
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '$' && i+1 < len(q) && q[i+1] == '$':
			j := strings.Index(q[i+2:], "$$")
			end := len(q)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(q[i:end])
			i = end - 1
		case c == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
		default:
			b.WriteByte(c)
		}
	}
	r := b.String()
	rebound.Store(q, r)
	return r
}

// describePG wraps an error of a PostgreSQL store: the common failures
// name the cause and the fix; the URL in path is already redacted.
func describePG(path, op string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "28P01" || pe.Code == "28000":
			return fmt.Errorf("%s store %s: PostgreSQL refused the login (%s); check the user in store.url and its password (PGPASSFILE or PGPASSWORD): %w", op, path, pe.Message, err)
		case pe.Code == "3D000":
			return fmt.Errorf("%s store %s: the database does not exist; create it (createdb) or name one that does in store.url: %w", op, path, err)
		case pe.Code == "42501":
			return fmt.Errorf("%s store %s: the user lacks a privilege it needs (%s); grant it, or connect as the database's owner: %w", op, path, pe.Message, err)
		case pe.Code == "25006":
			return fmt.Errorf("%s store %s: %w: %w", op, path, ErrReadOnly, err)
		case pe.Code == "53100":
			return fmt.Errorf("%s store %s: the server's disk is full; free space and retry: %w", op, path, err)
		case pe.Code == "55P03":
			return fmt.Errorf("%s store %s: %w: %w", op, path, ErrLocked, err)
		}
		return fmt.Errorf("%s store %s: %w", op, path, err)
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) {
		return fmt.Errorf("%s store %s: cannot reach PostgreSQL (%v); check that the server runs and that store.url (or --db) names its host and port: %w",
			op, path, err, ErrUnreachable)
	}
	return fmt.Errorf("%s store %s: %w", op, path, err)
}

// ErrUnreachable reports a PostgreSQL server that could not be reached.
var ErrUnreachable = errors.New("the PostgreSQL server is unreachable")
