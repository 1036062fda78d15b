package service

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
	"github.com/the-loop/the-loop/runtime/hooks"
)

// TestHandoffWalkEveryStageTableRow drives each row of the stage table end
// to end: the spec branch and draft PR exist, `handoff post` posts the
// record, an authorized `the-loop start` arms the item through the poller
// (freezing the record), the checklist shows the earlier phases unticked, an
// authorized bare `the-loop execute` declares them skipped, and the
// import-handoff claim lands the walk on the row's entry node.
func TestHandoffWalkEveryStageTableRow(t *testing.T) {
	for _, row := range handofftest.Rows() {
		t.Run(row.Spec.Stage+"→"+row.Enter, func(t *testing.T) {
			r := newHandoffRig(t)
			rec, files := handofftest.Build(row.Spec)
			r.pushBranch(&rec, files)
			recordURL := r.post(rec)

			armed, selected := r.armAndSelect()
			assert.Equal(t, "started", armed.Action, armed.Detail)
			assert.Equal(t, "phase-selection", armed.Node)
			list := r.lastOwn(checklist.Marker)
			assert.Contains(t, list.Body, "Handed off by @dev at `"+row.Spec.Stage+"` ([record]("+recordURL+"))", "the person it was posted for, never the loop")

			assert.Equal(t, "gate", selected.Action, selected.Detail)
			assert.Equal(t, "pass", selected.Status)
			st := r.state()
			require.Equal(t, "import-handoff", st.CurrentNode, "a handed-off walk enters import-handoff after phase-selection")
			require.NotNil(t, st.Handoff)
			assert.Equal(t, "dev", st.Handoff.Author, "the record is attributed to the operator who posted it")
			assert.Equal(t, r.gh.BotLogin(), st.Handoff.CommentAuthor)
			assert.Equal(t, recordURL, st.Handoff.CommentURL)
			assert.NotEmpty(t, st.Handoff.RecordedAt)
			frozen, err := handoff.DecodeJSON(st.Handoff.Record)
			require.NoError(t, err)
			assert.Equal(t, rec.Artifacts, frozen.Artifacts)
			assert.Equal(t, rec.Enter, frozen.Enter)

			env := r.complete()
			assert.Equal(t, row.Enter, env.CurrentNode, env.Messages)
			st = r.state()
			assert.Empty(t, st.HandoffDemoted)
			enter, _ := r.svcGraph(t).Node(row.Enter)
			for _, n := range r.svcGraph(t).Nodes[:enter.Index()] {
				if !n.Skippable || n.OptIn {
					continue
				}
				d := st.Skips[n.ID]
				require.NotNil(t, d, n.ID)
				assert.Equal(t, runtime.ViaHandoff, d.Via, n.ID)
				assert.Equal(t, "@alice", d.By, "the replier owns the walk")
				assert.Equal(t, recordURL, d.CommentURL)
				assert.NotEmpty(t, d.Signature, "a handoff skip is signed like any declaration")
			}
			assert.Empty(t, st.Skips[row.Enter])
			imp := st.Decisions["import-handoff"]
			require.NotNil(t, imp)
			assert.Equal(t, "@dev", imp.By)

			// check renders the skips as handoff skips and stays satisfied.
			res, err := r.svc.Check(r.ctx(), CheckRequest{Repo: r.repo, WorkItem: r.id})
			require.NoError(t, err)
			rep := res.Reports[0]
			for _, nr := range rep.Nodes {
				if nr.Node == "brainstorming" && row.Enter != handoff.NodeBrainstorming {
					assert.Equal(t, "skip", nr.Status)
					assert.Contains(t, nr.Messages, "skipped by handoff (declared by @alice)")
				}
				if nr.Node == "import-handoff" {
					assert.Equal(t, "pass", nr.Status, nr.Messages)
				}
			}
			gs, err := r.svc.Status(r.ctx(), ItemRequest{Repo: r.repo, WorkItem: r.id})
			require.NoError(t, err)
			assert.Contains(t, gs.GraphContext, "handed off: stage "+row.Spec.Stage+", enter "+row.Enter+", carried by branch; record "+recordURL)
			assert.Len(t, r.events(EventHandoffHonoured), 1)
		})
	}
}

func (r *handoffRig) svcGraph(t *testing.T) *runtime.Graph {
	g, err := Graph("")
	require.NoError(t, err)
	return g
}

// TestHandoffWalkDemotesToTheFirstFailure: a committed file that changed
// after hashing sends the walk to its producer, never past it.
func TestHandoffWalkDemotesToTheFirstFailure(t *testing.T) {
	r := newHandoffRig(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled})
	r.pushBranch(&rec, files)
	r.post(rec)
	r.armAndSelect()
	require.Equal(t, "import-handoff", r.state().CurrentNode)
	handofftest.WriteFiles(t, r.specDir(), handofftest.Tampered(files, handoff.DesignDoc))

	env := r.complete()
	assert.Equal(t, "design", env.CurrentNode, env.Messages)
	st := r.state()
	require.Len(t, st.HandoffDemoted, 1)
	assert.Equal(t, runtime.Demotion{Artifact: handoff.DesignDoc, Node: "design", Reason: st.HandoffDemoted[0].Reason, At: st.HandoffDemoted[0].At}, st.HandoffDemoted[0])
	assert.Contains(t, st.HandoffDemoted[0].Reason, "design.md does not match the record's sha256")
	for _, n := range []string{"design", "test-planning"} {
		assert.NotContains(t, st.Skips, n, "%s is un-skipped", n)
	}
	for _, n := range []string{"brainstorming", "brainstorm-approval", "requirements-definition", "requirements-approval"} {
		assert.Contains(t, st.Skips, n, "%s stays skipped: its artifact verified", n)
	}
	assert.Len(t, r.events("graph.skip_withdrawn"), 2)
}

// TestNoHandoffItemWalksUnchanged: an item without a handoff walks the
// shipped loop exactly as it did before handoffs existed. The loop posts the
// same checklist and confirmation, byte for byte, as the loop without the
// import-handoff node, lands on the same nodes, and records the same state —
// except the one line that says import-handoff was routed around.
func TestNoHandoffItemWalksUnchanged(t *testing.T) {
	restore := runtime.Now
	runtime.Now = func() string { return "2026-10-21T10:00:00Z" }
	t.Cleanup(func() { runtime.Now = restore })
	withNode, withState := noHandoffWalk(t, nil)
	without, withoutState := noHandoffWalk(t, graphWithoutImportHandoff(t))
	assert.Equal(t, without.comments, withNode.comments, "the loop posts the same comments")
	assert.Equal(t, without.nodes, withNode.nodes, "the walk lands on the same nodes")
	assert.Equal(t, []string{"brainstorming", "brainstorm-approval", "requirements-definition"}, withNode.nodes)
	require.GreaterOrEqual(t, len(withNode.comments), 3, "checklist, confirmation and review request at least")
	require.Contains(t, withState.Nodes, "import-handoff")
	assert.Equal(t, "skipped", withState.Nodes["import-handoff"].Outcome)
	delete(withState.Nodes, "import-handoff")
	a, err := withState.Marshal()
	require.NoError(t, err)
	b, err := withoutState.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(b), string(a), "the state is byte for byte the same")
	assert.Nil(t, withState.Handoff)
	assert.NotContains(t, string(a), `"handoff"`)
}

type walkTrace struct {
	comments []string
	nodes    []string
}

// noHandoffWalk arms an item, selects with a bare execute, writes and claims
// a brainstorm, approves it and writes requirements, on graph g (nil: the
// shipped loop), and returns what the loop posted and where it stood.
func noHandoffWalk(t *testing.T, g *runtime.Graph) (walkTrace, *runtime.State) {
	r := newHandoffRig(t)
	if g != nil {
		swapShippedGraph(t, g)
	}
	var tr walkTrace
	at := func() { tr.nodes = append(tr.nodes, r.state().CurrentNode) }
	r.armAndSelect()
	at()
	handofftest.WriteFiles(t, r.specDir(), map[string]string{handoff.Brainstorm: handofftest.Body(handoff.Brainstorm, "")})
	r.complete()
	at()
	r.say("dev", "Approved.")
	r.poll()
	at()
	// Each run has its own fake server: its address and the signatures made
	// over addresses are the only things allowed to differ.
	server := strings.TrimSuffix(r.gh.URL(), "/api/v3/")
	for _, c := range r.gh.Comments(r.ref) {
		if c.Author == r.gh.BotLogin() {
			tr.comments = append(tr.comments, strings.ReplaceAll(c.Body, server, "SERVER"))
		}
	}
	st := r.state()
	if st.Dependencies != nil {
		st.Dependencies.Since = "" // when the poller read the graph: the wall clock of each run
	}
	for _, m := range []map[string]*runtime.Decision{st.Decisions, st.Skips, st.OptIns} {
		for _, d := range m {
			d.Signature = ""
		}
	}
	b, err := json.Marshal(st)
	require.NoError(t, err)
	host := strings.TrimPrefix(strings.TrimPrefix(server, "http://"), "https://")
	out, err := runtime.ParseState([]byte(strings.ReplaceAll(strings.ReplaceAll(string(b), server, "SERVER"), host, "SERVER")), r.id)
	require.NoError(t, err)
	return tr, out
}

// graphWithoutImportHandoff compiles the shipped loop with the
// import-handoff node taken out: the loop as it was before handoffs.
func graphWithoutImportHandoff(t *testing.T) *runtime.Graph {
	src, err := graphs.Source(graphs.Default)
	require.NoError(t, err)
	var out []string
	inNode := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "  - id: import-handoff"):
			inNode = true
			continue
		case inNode && (strings.HasPrefix(line, "  - id:") || !strings.HasPrefix(line, " ")):
			inNode = false
		case inNode:
			continue
		}
		if strings.Contains(line, "import-handoff") {
			continue
		}
		out = append(out, line)
		if line == "edges:" {
			out = append(out, "  - {from: phase-selection, to: brainstorming, on: selected}")
		}
	}
	reg, err := hooks.Registry()
	require.NoError(t, err)
	g, err := runtime.Compile(graphs.Default, []byte(strings.Join(out, "\n")), reg)
	require.NoError(t, err)
	_, has := g.Node("import-handoff")
	require.False(t, has)
	return g
}

// swapShippedGraph makes the service walk g as the default loop for the
// rest of the test.
func swapShippedGraph(t *testing.T, g *runtime.Graph) {
	graphMu.Lock()
	orig, had := graphCache[graphs.Default]
	graphCache[graphs.Default] = g
	graphMu.Unlock()
	t.Cleanup(func() {
		graphMu.Lock()
		defer graphMu.Unlock()
		if had {
			graphCache[graphs.Default] = orig
		} else {
			delete(graphCache, graphs.Default)
		}
	})
}

// The loop imports a handoff's carried files itself, before any session
// runs at import-handoff: a session that claims without running `handoff
// import` still lands the files the ticket carries, and the walk is not
// demoted.
func TestTheLoopImportsTheHandoffItselfBeforeAnySession(t *testing.T) {
	r := newHandoffRig(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	r.post(rec)
	r.say("dev", "the-loop start")
	r.poll()
	r.say("alice", "the-loop execute")
	// The cycle that answers the checklist enters import-handoff and, in
	// the same evaluation, imports.
	r.poll()
	require.Equal(t, "import-handoff", r.state().CurrentNode)
	r.poll()
	for name, body := range files {
		got, err := os.ReadFile(filepath.Join(r.specDir(), name))
		require.NoError(t, err, "%s was imported by the loop", name)
		assert.Equal(t, body, string(got))
	}
	imp := r.events(EventHandoffImported)
	require.Len(t, imp, 1)
	assert.Equal(t, "the loop", imp[0].Data["by"])
	assert.Empty(t, imp[0].Data["failed"])
	r.poll()
	assert.Len(t, r.events(EventHandoffImported), 1, "once per visit")

	env := r.complete() // the session claims without importing
	assert.Equal(t, rec.Enter, env.CurrentNode, env.Messages)
	assert.Empty(t, r.state().HandoffDemoted, "the walk is not demoted")
}
