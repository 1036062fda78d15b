package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkUpdate measures one Update (read, save item + node row, append an
// event, commit) with the production settings (synchronous=FULL), next to a
// synchronous=OFF floor measured in the same run; compare the two as a ratio.
func BenchmarkUpdate(b *testing.B) {
	for _, sync := range []string{"FULL", "OFF"} {
		b.Run("synchronous="+sync, func(b *testing.B) {
			ctx := context.Background()
			o := defaultOptions()
			o.synchronous = sync
			s, err := openStore(ctx, filepath.Join(b.TempDir(), "bench.db"), o)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				if err := s.Update(ctx, "r", "bench", increment); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("parallel", func(b *testing.B) {
		ctx := context.Background()
		s := openTemp(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := s.Update(ctx, "r", "bench", increment); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkGet measures reading one item with 20 node rows.
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	s := openTemp(b)
	item := &WorkItem{Loop: "feature", CurrentNode: "n10", State: []byte(`{"version":1,"nodes":{}}`)}
	for i := range 20 {
		item.Nodes = append(item.Nodes, NodeRow{Node: fmt.Sprintf("n%02d", i), Attempts: i, Outcome: "pass"})
	}
	if err := s.Update(ctx, "r", "bench", func(*WorkItem) (*WorkItem, []Event, error) { return item, nil, nil }); err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			it, found, err := s.Get(ctx, "r", "bench")
			if err != nil || !found || len(it.Nodes) != 20 {
				b.Fatalf("get: found=%v nodes=%d err=%v", found, len(it.Nodes), err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, _, err := s.Get(ctx, "r", "bench"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
