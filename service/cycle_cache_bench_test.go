package service

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkIdleCycle runs idle poll cycles (nothing changed since the
// last) against the fake GitHub watching 10, 100 and 1,000 open issues and
// reports what one costs in memory (allocs/op, B/op) and in reads: the
// queries reading items' states and the repository configs opened.
// "cycle" reads the config once and the states in one query; "per-item",
// the floor measured in the same run, opens the config and reads the state
// once per item, as the poller did before.
//
//	go test ./service -run '^$' -bench '^BenchmarkIdleCycle$' -benchtime 5x
func BenchmarkIdleCycle(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		for _, mode := range []string{"cycle", "per-item"} {
			b.Run(fmt.Sprintf("issues=%d/%s", n, mode), func(b *testing.B) {
				r := newQuotaRig(b, n)
				p := r.process(b)
				p.perItemReads = mode == "per-item"
				r.cycle(b, p) // takes every lease, reads everything once
				r.cycle(b, p)
				st, err := p.Svc.writableStore(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				reads, opens := st.StateReads(), p.Svc.repoOpens.Load()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					r.cycle(b, p)
				}
				b.ReportMetric(float64(st.StateReads()-reads)/float64(b.N), "state-reads/cycle")
				b.ReportMetric(float64(p.Svc.repoOpens.Load()-opens)/float64(b.N), "config-opens/cycle")
			})
		}
	}
}
