package sessions

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sandbox"
	"github.com/the-loop/the-loop/store"
)

// TestSupervisorHoldsItemsItCannotConfine: a host that cannot confine a
// session under sessions.confinement: auto launches nothing; every item
// says why (once in its log, in each cycle's report) and none escalates.
func TestSupervisorHoldsItemsItCannotConfine(t *testing.T) {
	r := newRig(t)
	conf := sandbox.NewConfiner(sandbox.Config{}, sandbox.Options{Exe: "/nonexistent/the-loop"})
	require.Error(t, conf.Refusal(), "no launcher to probe with: the host cannot confine")
	s, err := New(Config{}, Deps{Store: r.store, Harnesses: r.harnesses(), Serve: []string{"/usr/local/bin/the-loop", "serve"},
		StateDir: r.state, Now: r.clock.Now, Log: slog.New(slog.NewTextHandler(ioDiscard{}, nil)), Confiner: conf})
	require.NoError(t, err)
	w := r.want("issue-1", "design", "artifact: docs/specs/issue-1/design.md\n", 1)
	for i := 0; i < 3; i++ {
		rep, err := s.Cycle(context.Background(), []Want{w})
		require.NoError(t, err)
		assert.Empty(t, rep.Started, "nothing is launched unconfined")
		assert.Empty(t, rep.Escalations, "the host's fault is not the item's: no escalation")
		require.Len(t, rep.Held, 1)
		assert.Contains(t, rep.Held[0].Reason, "sessions.confinement: auto cannot confine a session on this host")
		assert.Contains(t, rep.Held[0].Reason, "sessions.confinement: none")
		assert.True(t, rep.Held[0].Host, "the host holds it, not its figures")
	}
	assert.Equal(t, 0, r.runs("issue-1"))
	refused := 0
	for _, e := range r.events("issue-1") {
		if e == "session.refused" {
			refused++
		}
	}
	assert.Equal(t, 1, refused, "the refusal is in the item's log once")
}

// TestSupervisorCapsATranscript: a session printing far more than
// sessions.maxTranscriptBytes leaves the tail, and its record says how
// much was cut.
func TestSupervisorCapsATranscript(t *testing.T) {
	r := newRig(t)
	h := map[string]harness.Config{"loud": {Adapter: harness.AdapterCommand, Argv: []string{"/bin/sh", "-c",
		`i=0; while [ $i -lt 4000 ]; do echo "line $i of a session that prints too much, padded to make it longer still"; i=$((i+1)); done; echo LAST`, "{prompt_file}"}}}
	s, err := New(Config{MaxTranscriptBytes: 64 << 10}, Deps{Store: r.store, Harnesses: h, Serve: []string{"/usr/local/bin/the-loop", "serve"},
		StateDir: r.state, Now: r.clock.Now, Log: slog.New(slog.NewTextHandler(ioDiscard{}, nil)),
		NewID: func() string { r.ids++; return fmt.Sprintf("s-%03d", r.ids) }})
	require.NoError(t, err)
	w := r.want("issue-2", "design", "print", 1)
	w.Harness = "loud"
	rep := cycleUntil(t, s, fixed(w), exited)
	rec, found, err := r.store.GetSession(context.Background(), rep.Exited[0].Session)
	require.NoError(t, err)
	require.True(t, found)
	b, err := os.ReadFile(rec.Transcript)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(b), 64<<10)
	assert.Contains(t, string(b), "LAST\n", "the tail is kept")
	assert.NotContains(t, string(b), "line 0 of", "the head is cut")
	assert.Greater(t, rec.TranscriptCut, int64(200<<10), "the record says how much was cut")
	assert.Equal(t, store.SessionExited, rec.State)
}
