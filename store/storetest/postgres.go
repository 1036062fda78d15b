// Package storetest gives tests a PostgreSQL store of their own on the
// server LOOP_TEST_PG names: a fresh schema per test, dropped at cleanup.
// Where LOOP_TEST_PG is unset the test is skipped, saying why; under
// CI=true it fails instead, because .ci/run starts the server and a green
// run must not hide a missing one.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// EnvPostgres names the variable that points the tests at a PostgreSQL
// server, e.g. postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable.
const EnvPostgres = "LOOP_TEST_PG"

// PostgresURL returns LOOP_TEST_PG, or skips t (fails it under CI=true)
// when it is unset.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvPostgres)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is unset under CI=true: .ci/run starts PostgreSQL and exports it; the PostgreSQL tests must run", EnvPostgres)
		}
		t.Skipf("PostgreSQL tests skipped: %s is unset (start a server and set it, as .ci/run does)", EnvPostgres)
	}
	return u
}

// TempPostgres creates a fresh schema on LOOP_TEST_PG and returns the URL
// of a store in it (search_path set to the schema); the schema is dropped
// at cleanup.
func TempPostgres(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open %s: %v", EnvPostgres, err)
	}
	defer func() { _ = db.Close() }()
	schema := "t_" + strings.ToLower(rand.Text()[:16])
	if _, err := db.ExecContext(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create a schema on %s: %v", EnvPostgres, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer func() { _ = db.Close() }()
		_, _ = db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	})
	return WithSchema(t, base, schema)
}

// WithSchema returns base with search_path set to schema.
func WithSchema(t testing.TB, base, schema string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgres, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return fmt.Sprint(u)
}
