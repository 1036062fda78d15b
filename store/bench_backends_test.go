package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/the-loop/the-loop/store/storetest"
)

// BenchmarkBackends runs the same store operations on SQLite and on
// PostgreSQL (when LOOP_TEST_PG names a server): an Update, a Get, taking
// a lease, and the latency of a wake from one handle to a listener on
// another handle of the store (as between two processes). The floor of
// each backend is its Get, measured in the same run: read the wake's
// latency as a multiple of it.
//
//	go test ./store -run '^$' -bench BenchmarkBackends -benchtime 200x
func BenchmarkBackends(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			loc := func(b *testing.B) string {
				if backend == "postgres" {
					return storetest.TempPostgres(b)
				}
				return filepath.Join(b.TempDir(), "state.db")
			}
			open := func(b *testing.B, at string) *Store {
				s, err := Open(context.Background(), at)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = s.Close() })
				return s
			}
			ctx := context.Background()
			b.Run("update", func(b *testing.B) {
				s := open(b, loc(b))
				for b.Loop() {
					if err := s.Update(ctx, "r", "bench", increment); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("get", func(b *testing.B) {
				s := open(b, loc(b))
				if err := s.Update(ctx, "r", "bench", increment); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, _, err := s.Get(ctx, "r", "bench"); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("take-lease", func(b *testing.B) {
				s := open(b, loc(b))
				i := 0
				for b.Loop() {
					i++
					if _, ok, err := s.TakeLease(ctx, fmt.Sprintf("github:acme/widgets#%d", i%100), "bench", time.Minute); err != nil || !ok {
						b.Fatalf("take a lease: ok=%v err=%v", ok, err)
					}
				}
			})
			b.Run("wake-latency", func(b *testing.B) {
				at := loc(b)
				poster, listener := open(b, at), open(b, at)
				lctx, cancel := context.WithCancel(ctx)
				defer cancel()
				wakes, err := listener.Wakes(lctx)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := poster.Wake(ctx, "github:acme/widgets#1"); err != nil {
						b.Fatal(err)
					}
					select {
					case <-wakes:
					case <-time.After(10 * time.Second):
						b.Fatal("no wake within 10s")
					}
				}
			})
		})
	}
}
