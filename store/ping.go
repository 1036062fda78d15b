package store

import (
	"context"
	"fmt"
	"os"
)

// Ping checks the store answers: the file can still be opened (a new
// connection would reach it) and a read over the pool returns.
func (s *Store) Ping(ctx context.Context) error {
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	_ = f.Close()
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		return describe(s.path, "read", err)
	}
	return nil
}
