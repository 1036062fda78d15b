package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// heldPair arms b, blocked by a, with alice's answer given: b is held.
func heldPair(t *testing.T) *dagRig {
	t.Helper()
	r := newDAGRig(t)
	a, b := r.issue("a"), r.issue("b")
	r.gh.AddBlocker(b, a)
	r.say(b, "alice", "the-loop start")
	r.cycle()
	r.say(b, "alice", execute)
	r.cycles(2)
	require.Equal(t, phaseSelection, r.at("issue-3"))
	return r
}

// offline is a service over dbPath with no ticket integration at all: what
// check and graph status run as in CI.
func (r *dagRig) offline(dbPath string, now time.Time) *Service {
	return testService(r.t, r.svc.cfg, Deps{Store: store.NewHandle(dbPath), Signer: runtime.NewSigner([]byte("test-key")),
		Clock: func() time.Time { return now }})
}

// check and graph status never touch the network: they report the hold from
// the poller's record, dated from the store.
func TestCheckAndGraphStatusReportTheHoldFromTheRecordOffline(t *testing.T) {
	r := heldPair(t)
	requests := r.gh.RequestCount()
	svc := r.offline(r.svc.DBPath(), time.Now().Add(3*time.Minute))
	res, err := svc.Check(context.Background(), CheckRequest{Repo: r.repo, WorkItem: "issue-3"})
	require.NoError(t, err)
	rep := res.Reports[0]
	require.NotNil(t, rep.Dependencies)
	assert.Equal(t, "blocked by #2 (not started)", rep.Dependencies.Status)
	assert.Equal(t, "3m", rep.Dependencies.Age)
	assert.Equal(t, "read 3m ago", DependencyAge(rep.Dependencies))
	assert.Equal(t, "wait", phaseSelectionOf(rep).Status)

	gs, err := svc.Status(context.Background(), ItemRequest{Repo: r.repo, WorkItem: "issue-3"})
	require.NoError(t, err)
	assert.Equal(t, "wait", gs.Status)
	assert.Contains(t, gs.Needs, "blocked by #2 (not started)")
	assert.Contains(t, gs.GraphContext, "dependencies: blocked by #2 (not started) (read 3m ago) — phase selection waits until they finish: do not start work on this item")
	assert.Equal(t, requests, r.gh.RequestCount(), "check and graph status sent no request")

	// In CI there is no store: the portable record carries the read, and
	// says when it was made.
	ci := r.offline(filepath.Join(t.TempDir(), "ci.db"), time.Now())
	res, err = ci.Check(context.Background(), CheckRequest{Repo: r.repo, WorkItem: "issue-3", Recompute: true})
	require.NoError(t, err)
	rep = res.Reports[0]
	require.NotNil(t, rep.Dependencies)
	assert.Empty(t, rep.Dependencies.ReadAt)
	assert.Contains(t, DependencyAge(rep.Dependencies), "recorded ")
	assert.Equal(t, "wait", phaseSelectionOf(rep).Status)
	assert.Contains(t, phaseSelectionOf(rep).Messages, "blocked by #2 (not started)")
}

// editPortable rewrites the portable record of id through edit.
func (r *dagRig) editPortable(id string, edit func(doc map[string]any)) {
	r.t.Helper()
	path := filepath.Join(r.repo, "docs", "specs", id, runtime.StateFile)
	data, err := os.ReadFile(path)
	require.NoError(r.t, err)
	var doc map[string]any
	require.NoError(r.t, json.Unmarshal(data, &doc))
	edit(doc)
	out, err := json.Marshal(doc)
	require.NoError(r.t, err)
	require.NoError(r.t, os.WriteFile(path, out, 0o644))
}

// The portable record is a file an agent can write. Edited to drop the
// read, to claim the item started, or to claim its blocker completed, it
// never releases the hold: the poller reads the graph again before the
// gate, and a blocker counts as complete only by the store or its tracker.
func TestAnEditedPortableRecordNeverReleasesAHold(t *testing.T) {
	r := heldPair(t)
	r.editPortable("issue-3", func(doc map[string]any) {
		delete(doc, "dependencies")
		doc["currentNode"] = "design"
	})
	r.issueStateAt("issue-2", completeNode)

	// A new poller process on a new store (the database was lost): the
	// only state is the edited record.
	fresh := testService(t, r.svc.cfg, Deps{Store: store.NewHandle(filepath.Join(t.TempDir(), "fresh.db")),
		Signer: runtime.NewSigner([]byte("test-key")), Providers: r.svc.deps.Providers})
	r.svc, r.poller = fresh, &Poller{Svc: fresh, Sources: r.poller.Sources}
	acts := r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-3"), "the pointer is vetted back and the hold is read again")
	assert.Equal(t, "blocked by #2 (at complete)", acts["issue-3"].Dependencies, "a completion only a file claims does not finish a blocker")
	assert.Nil(t, r.state("issue-3").Decisions["design"])
}

// An edited record can add a hold: check reports what it says.
func TestAnEditedPortableRecordCanOnlyAddAHold(t *testing.T) {
	r := newDAGRig(t)
	free := r.issue("free")
	r.say(free, "alice", "the-loop start")
	r.cycles(2)
	r.editPortable("issue-2", func(doc map[string]any) {
		doc["dependencies"] = map[string]any{"verdict": "ready", "hold": false, "status": "", "blockers": []any{map[string]any{"ref": "github:o/r#9", "at": "not started"}}}
	})
	ci := r.offline(filepath.Join(t.TempDir(), "ci.db"), time.Now())
	res, err := ci.Check(context.Background(), CheckRequest{Repo: r.repo, WorkItem: "issue-2", Recompute: true})
	require.NoError(t, err)
	assert.Contains(t, phaseSelectionOf(res.Reports[0]).Messages, "blocked by github:o/r#9 (not started)")
}

// issueStateAt writes a portable record of id standing at node, as a file
// in the repository would (never through the store).
func (r *dagRig) issueStateAt(id, node string) {
	r.t.Helper()
	st := runtime.NewState(id)
	st.Loop, st.CurrentNode = "pdlc-work-item-loop", node
	data, err := st.Marshal()
	require.NoError(r.t, err)
	path := filepath.Join(r.repo, "docs", "specs", id, runtime.StateFile)
	require.NoError(r.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(r.t, os.WriteFile(path, data, 0o644))
}
