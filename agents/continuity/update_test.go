package continuity

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpdateBuildsGraph(t *testing.T) {
	s, c := newLive(t)
	steps := []struct {
		entry      Entry
		node       string
		nodeStatus string
		edges      []Edge
		statuses   map[string]string
		blockers   int
	}{
		{Entry{Kind: KindTask, Text: "write the parser", Files: []string{"importer/parse.go"}}, "t1", StatusOpen, nil, nil, 0},
		{Entry{Kind: KindTask, Text: "wire the CLI", DependsOn: []string{"t1"}}, "t2", StatusOpen,
			[]Edge{{"t1", "t2", EdgeSequence}, {"t2", "t1", EdgeDepends}}, nil, 0},
		{Entry{Kind: KindBlocker, Text: "need sample files from the customer", Blocks: "t2"}, "b1", StatusOpen,
			[]Edge{{"t2", "b1", EdgeDepends}}, map[string]string{"t2": StatusBlocked}, 1},
		{Entry{Kind: KindDecision, Text: "use synthetic samples", Why: "customer is slow", Resolves: "b1", Next: "generate samples"}, "d1", StatusDone,
			[]Edge{{"d1", "b1", EdgeResolution}}, map[string]string{"b1": StatusDone, "t2": StatusOpen}, 0},
		{Entry{Kind: KindTask, Node: "t1", Status: StatusDone}, "t1", StatusDone, nil, map[string]string{"t1": StatusDone}, 0},
		{Entry{Kind: KindDiscovery, Text: "dates come in two formats", Why: "parser must accept both"}, "", "", nil, nil, 0},
		{Entry{Kind: KindPhase, Text: "implementation"}, "", "", nil, nil, 0},
	}
	for i, st := range steps {
		c.advance(time.Minute)
		res, err := s.Update(st.entry)
		require.NoError(t, err, "step %d", i)
		assert.Equal(t, st.node, res.Node, "step %d", i)
		assert.Equal(t, st.nodeStatus, res.NodeStatus, "step %d", i)
		assert.Len(t, res.Blockers, st.blockers, "step %d", i)
		dp, notes, graph := loadParts(t, s)
		assert.Equal(t, i+2, dp.Revision)
		assert.Equal(t, dp.Revision, notes.Revision)
		assert.Equal(t, dp.Revision, graph.Revision)
		assert.Equal(t, c.now, dp.Updated)
		rec := notes.Records[len(notes.Records)-1]
		assert.Equal(t, st.entry.Kind, rec.Kind)
		assert.Equal(t, c.now, rec.At)
		for _, e := range st.edges {
			assert.Contains(t, graph.Edges, e, "step %d", i)
		}
		for id, want := range st.statuses {
			assert.Equal(t, want, graph.node(id).Status, "step %d node %s", i, id)
		}
	}
	dp, notes, _ := loadParts(t, s)
	assert.Equal(t, "generate samples", dp.NextAction, "next action persists until replaced")
	assert.Equal(t, "implementation", dp.Phase)
	assert.Equal(t, "task t1 (done): write the parser", dp.LastCompleted, "a discovery or phase boundary completes nothing")
	assert.Equal(t, []string{"importer/parse.go"}, notes.Records[1].Files)
	assert.Contains(t, notes.Records[5].Text, "task t1 is now done")
}

func TestUpdateRejectsBadEntries(t *testing.T) {
	s, _ := newLive(t)
	_, err := s.Update(Entry{Kind: KindTask, Text: "a task"})
	require.NoError(t, err)
	tests := []struct {
		entry Entry
		want  string
	}{
		{Entry{Text: "x"}, "entry kind is required"},
		{Entry{Kind: "idea", Text: "x"}, `entry kind "idea" is not one of`},
		{Entry{Kind: KindDecision, Text: "x", Status: StatusDone}, "status applies only to task and blocker"},
		{Entry{Kind: KindTask, Text: "x", Status: "maybe"}, `status "maybe" is not one of open, done, blocked`},
		{Entry{Kind: KindTask, Text: "x", Node: "bad id"}, `node id "bad id"`},
		{Entry{Kind: KindTask, Text: "x", DependsOn: []string{"t9"}}, `dependsOn names unknown node "t9"`},
		{Entry{Kind: KindBlocker, Text: "x", Blocks: "t9"}, `blocks names "t9", which is not a task`},
		{Entry{Kind: KindDecision, Text: "x", Resolves: "t1"}, `resolves names "t1", which is not a blocker`},
		{Entry{Kind: KindBlocker, Node: "t1", Status: StatusDone}, "node t1 is a task, not a blocker"},
		{Entry{Kind: KindTask}, "a new task needs text"},
		{Entry{Kind: KindDiscovery}, "a discovery needs text"},
		{Entry{Kind: KindTask, Node: "t1"}, "nothing to change on t1"},
	}
	before := readFile(t, setFile(s, NotesFile))
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := s.Update(tt.entry)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	assert.Equal(t, before, readFile(t, setFile(s, NotesFile)), "rejected entries write nothing")
}

func TestUpdateNeedsActiveSet(t *testing.T) {
	absent := openSet(t, gitRepo(t, ""), &clock{now: t0})
	_, err := absent.Update(Entry{Kind: KindTask, Text: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no live continuity set")

	s, _ := newLive(t)
	_, err = s.End(EndOptions{Kind: EndInterrupted})
	require.NoError(t, err)
	_, err = s.Update(Entry{Kind: KindTask, Text: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "resume")
	_, err = s.End(EndOptions{Kind: EndInterrupted})
	require.Error(t, err, "an interrupted set cannot be interrupted again")
}

func TestEndCompleted(t *testing.T) {
	s, c := newLive(t)
	for _, e := range []Entry{
		{Kind: KindTask, Text: "parser"},
		{Kind: KindTask, Text: "exporter"},
		{Kind: KindBlocker, Text: "legal review", Blocks: "t2"},
		{Kind: KindTask, Node: "t1", Status: StatusDone},
	} {
		_, err := s.Update(e)
		require.NoError(t, err)
	}
	c.advance(time.Hour)
	res, err := s.End(EndOptions{Kind: EndCompleted, Result: "parser merged"})
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, res.Status)
	dp, notes, graph := loadParts(t, s)
	assert.Equal(t, StatusCompleted, dp.Status)
	assert.Empty(t, dp.Blockers, "every open node is classified")
	assert.Contains(t, dp.NextAction, "2 deferred item(s)")
	for _, n := range graph.Nodes {
		switch n.Kind {
		case NodeTask, NodeBlocker:
			assert.Contains(t, []string{StatusDone, StatusDeferred}, n.Status, n.ID)
		case NodeSession:
			assert.Equal(t, StatusCompleted, n.Status)
		}
	}
	last := notes.Records[len(notes.Records)-1]
	assert.Equal(t, kindCompleted, last.Kind)
	assert.Contains(t, last.Text, "Result: parser merged")
	assert.Contains(t, last.Text, "task t2 (was blocked): exporter")
	assert.Contains(t, last.Text, "blocker b1 (was open): legal review")

	_, err = s.Update(Entry{Kind: KindTask, Text: "more"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "completed")
	start, err := s.Init(InitOptions{Goal: "next goal"})
	require.NoError(t, err)
	assert.Equal(t, ModeFresh, start.Mode, "a completed set is never resumed")
	assert.Equal(t, ReasonCompleted, start.Rejected.Reason)
}

func TestEndInterrupted(t *testing.T) {
	s, _ := newLive(t)
	_, err := s.Update(Entry{Kind: KindBlocker, Text: "waiting on CI"})
	require.NoError(t, err)
	_, err = s.End(EndOptions{Kind: "paused"})
	require.Error(t, err)
	res, err := s.End(EndOptions{Kind: EndInterrupted, Next: "re-run CI and read the failure"})
	require.NoError(t, err)
	assert.Equal(t, StatusInterrupted, res.Status)
	dp, notes, graph := loadParts(t, s)
	assert.Equal(t, "re-run CI and read the failure", dp.NextAction)
	assert.Equal(t, []string{"b1: waiting on CI"}, dp.Blockers)
	assert.Equal(t, StatusInterrupted, graph.node(sessionNodeID(dp.Session)).Status)
	assert.Equal(t, kindInterrupted, notes.Records[len(notes.Records)-1].Kind)
	st, err := s.Status()
	require.NoError(t, err)
	assert.Equal(t, StatusInterrupted, st.State)
	assert.Equal(t, ".handoff/continuity/death-point.md", st.DeathPoint)
}
