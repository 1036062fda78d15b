package service

import (
	"fmt"
	"testing"

	"github.com/the-loop/the-loop/integrations"
)

// BenchmarkPollCycle runs poll cycles against the fake GitHub watching 10,
// 100 and 1,000 open issues and reports what one cycle costs: requests
// sent and primary quota spent. "idle" cycles follow a cycle in which
// nothing changed; "busy" cycles follow a new comment on a tenth of the
// issues. "legacy" is the floor of the old behaviour, measured in the same
// run: a provider built anew each cycle (no conditional requests, every
// issue's comments listed). bench/poll.sh prints the table and how many
// issues one token can watch at a 60 s interval.
func BenchmarkPollCycle(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		for _, mode := range []string{"idle", "busy", "legacy"} {
			b.Run(fmt.Sprintf("issues=%d/%s", n, mode), func(b *testing.B) {
				r := newQuotaRig(b, n)
				process := r.process
				if mode == "legacy" {
					process = r.legacyProcess
				}
				p := process(b)
				r.cycle(b, p) // the first cycle reads everything once
				changed := max(n/10, 1)
				reqs, quota := 0, 0
				for b.Loop() {
					if mode == "busy" {
						b.StopTimer()
						for i := range changed {
							r.fake.AddComment(integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1 + i*(n/changed)}, "bob", "NONE", "news")
						}
						b.StartTimer()
					}
					rq, q := r.cycle(b, p)
					reqs, quota = reqs+rq, quota+q
				}
				b.ReportMetric(float64(reqs)/float64(b.N), "requests/cycle")
				b.ReportMetric(float64(quota)/float64(b.N), "quota/cycle")
			})
		}
	}
}
