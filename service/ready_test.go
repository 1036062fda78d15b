package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

func problems(cs []ReadyCheck) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		if c.OK {
			out[c.Name] = "ok"
		} else {
			out[c.Name] = c.Problem
		}
	}
	return out
}

func TestReadyChecksTheStoreTheSweepAndTheTrackers(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "the-loop.db")
	svc := testService(t, nil, Deps{Store: store.NewHandle(db)})
	heartbeat := filepath.Join(t.TempDir(), "poll-status.json")
	o := ReadyOptions{Heartbeat: heartbeat, MaxAge: time.Minute}

	got := problems(svc.Ready(ctx, o))
	assert.Equal(t, "ok", got["store"])
	assert.Contains(t, got["sweep"], "no poll cycle has ended yet (no heartbeat at "+heartbeat+")")

	write := func(rep CycleReport) {
		b, err := runtime.MarshalJSON(rep)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(heartbeat, b, 0o644))
	}
	write(CycleReport{Sources: []SourceReport{{System: "github", Container: "octo/widgets"}, {System: "jira", Container: "OPS", Error: "401 Unauthorized"}}})
	got = problems(svc.Ready(ctx, o))
	assert.Equal(t, map[string]string{"store": "ok", "sweep": "ok", "trackers": "every jira source failed in the last cycle (OPS: 401 Unauthorized)"}, got)

	write(CycleReport{Sources: []SourceReport{{System: "github", Container: "octo/widgets"}, {System: "github", Container: "octo/b", Error: "timeout"}}})
	assert.Equal(t, map[string]string{"store": "ok", "sweep": "ok", "trackers": "ok"}, problems(svc.Ready(ctx, o)), "one source of several failing is the report's to tell")

	old := time.Now().Add(-3 * time.Minute)
	require.NoError(t, os.Chtimes(heartbeat, old, old))
	assert.Contains(t, problems(svc.Ready(ctx, o))["sweep"], "ago, more than 1m0s")

	// The store file gone (moved aside): not ready, and ready again once it is back.
	require.NoError(t, os.Rename(db, db+".aside"))
	assert.Contains(t, problems(svc.Ready(ctx, ReadyOptions{}))["store"], "no such file")
	require.NoError(t, os.Rename(db+".aside", db))
	assert.Equal(t, map[string]string{"store": "ok"}, problems(svc.Ready(ctx, ReadyOptions{})))
}

func TestThePollerCountsCyclesAndGateEvaluations(t *testing.T) {
	r := newPollRig(t, "alice", "bob")
	r.toRequirementsApproval()
	m := metrics.New()
	r.svc.deps.Metrics = m
	r.fake.AddComment(r.ref, "bob", "MEMBER", "Approved.")
	require.Equal(t, "pass", r.cycle().Status)
	assert.NoError(t, testutil.GatherAndCompare(m.Registry(), stringsReader(`
# HELP theloop_gate_evaluations_total Human gates the poller evaluated, by outcome: pass, wait, block.
# TYPE theloop_gate_evaluations_total counter
theloop_gate_evaluations_total{outcome="pass"} 1
# HELP theloop_poll_cycles_total Poll cycles run, by outcome: ok, or failed when every source failed.
# TYPE theloop_poll_cycles_total counter
theloop_poll_cycles_total{outcome="failed"} 0
theloop_poll_cycles_total{outcome="ok"} 1
`), "theloop_gate_evaluations_total", "theloop_poll_cycles_total"))
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
