package service

import (
	"fmt"
	"testing"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// BenchmarkDependencyCycle runs idle poll cycles over n armed work items on
// the fake GitHub, in chains of ten each held by the one before it, and
// reports what one cycle costs: requests sent (REST and GraphQL) and REST
// quota spent. "off" is the floor measured in the same run: the same
// project with dag.enabled false. bench/deps.sh prints the ratio.
func BenchmarkDependencyCycle(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		for _, mode := range []string{"off", "on"} {
			b.Run(fmt.Sprintf("items=%d/%s", n, mode), func(b *testing.B) {
				r := newDAGRig(b)
				r.gh.SetQuota(1<<30, time.Hour)
				if mode == "off" {
					off := false
					r.svc.cfg.DAG.Enabled = &off
				}
				var prev integrations.Ref
				for i := range n {
					ref := r.issue(fmt.Sprintf("item %d", i))
					if i%10 > 0 {
						r.gh.AddBlocker(ref, prev)
					}
					r.say(ref, "alice", "the-loop start")
					prev = ref
				}
				r.cycles(3)
				reqs, quota := 0, 0
				for b.Loop() {
					rq, q := r.gh.RequestCount()+r.jira.RequestCount(), r.gh.QuotaRemaining()
					r.cycle()
					reqs, quota = reqs+r.gh.RequestCount()+r.jira.RequestCount()-rq, quota+q-r.gh.QuotaRemaining()
				}
				b.ReportMetric(float64(reqs)/float64(b.N), "requests/cycle")
				b.ReportMetric(float64(quota)/float64(b.N), "quota/cycle")
			})
		}
	}
}
