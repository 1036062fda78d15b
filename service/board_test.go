package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// seedBoardItem stores one item standing at node, edit changing its state.
func seedBoardItem(t *testing.T, st *store.Store, repo, id, node string, edit func(*runtime.State)) {
	t.Helper()
	s := &runtime.State{Version: 1, WorkItem: id, Ref: "github:octo/widgets#" + id[len("issue-"):], Loop: "pdlc-work-item-loop", CurrentNode: node,
		Nodes: map[string]*runtime.NodeRecord{node: {EnteredAt: "2026-05-01T08:00:00Z", LastEnteredAt: "2026-05-01T08:00:00Z"}}}
	if edit != nil {
		edit(s)
	}
	blob, err := json.Marshal(s)
	require.NoError(t, err)
	require.NoError(t, st.Update(context.Background(), repo, id, func(*store.WorkItem) (*store.WorkItem, []store.Event, error) {
		return &store.WorkItem{Loop: s.Loop, CurrentNode: node, State: blob}, []store.Event{{Name: "node.entered", Node: node}}, nil
	}))
}

// TestBoardListsEveryItemNeedsAHumanFirst: the board spans repositories,
// classes each item, sums its sessions, and sorts what needs a human
// first; filters keep a repository or a state; a bad state is refused.
func TestBoardListsEveryItemNeedsAHumanFirst(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	h := store.NewHandle(db)
	svc := testService(t, config.Default(), Deps{Store: h, Clock: func() time.Time { return time.Date(2026, 5, 1, 9, 10, 0, 0, time.UTC) }})
	st, err := h.Writable(ctx)
	require.NoError(t, err)

	seedBoardItem(t, st, "/repos/a", "issue-1", "implementation", nil)
	seedBoardItem(t, st, "/repos/a", "issue-2", "design-approval", nil)
	seedBoardItem(t, st, "/repos/b", "issue-3", "escalated", func(s *runtime.State) {
		s.Escalation = &runtime.Escalation{From: "verification", Reason: "tests failed five times"}
	})
	seedBoardItem(t, st, "/repos/b", "issue-4", "design", func(s *runtime.State) { s.Nodes["design"].LastBlock = "design.md is missing" })
	seedBoardItem(t, st, "/repos/b", "issue-5", "complete", nil)
	seedBoardItem(t, st, "/repos/a", "issue-6", "tasks-breakdown", func(s *runtime.State) {
		s.Control = &runtime.Control{Command: runtime.ControlPause, By: "carol", At: "2026-05-01T08:30:00Z"}
	})
	for i, cost := range []float64{0.5, 0.25} {
		rec := store.Session{ID: fmt.Sprintf("s-%d", i), Repo: "/repos/a", WorkItem: "issue-1", Node: "implementation", Harness: "claude", Argv: []string{"claude"},
			Attempt: 1, StartedAt: time.Date(2026, 5, 1, 8, i, 0, 0, time.UTC)}
		require.NoError(t, st.StartSession(ctx, rec))
		if i == 0 {
			rec.EndedAt, rec.State, rec.ExitStatus = rec.StartedAt.Add(time.Minute), store.SessionExited, "exit 0"
			rec.SessionUsage = store.SessionUsage{Tokens: 1200, CostUSD: cost, CostSource: "reported"}
			require.NoError(t, st.FinishSession(ctx, rec))
		}
	}

	board, err := svc.Board(ctx, BoardRequest{})
	require.NoError(t, err)
	var got []string
	for _, it := range board.Items {
		got = append(got, it.WorkItem+": "+it.State)
	}
	assert.Equal(t, []string{"issue-3: escalated", "issue-2: waiting for a human", "issue-4: blocked", "issue-6: held", "issue-1: agent working", "issue-5: complete"}, got)
	assert.Equal(t, []string{"/repos/a", "/repos/b"}, board.Repos)
	one := board.Items[4]
	assert.Equal(t, 1, one.Running)
	assert.Equal(t, 2, one.Sessions)
	assert.Equal(t, int64(1200), one.Tokens)
	assert.InDelta(t, 0.5, one.CostUSD, 1e-9)
	assert.Equal(t, 1, one.UnknownCost, "the running session has reported no cost yet")
	assert.Equal(t, "https://github.com/octo/widgets/issues/1", one.TicketURL)
	assert.Equal(t, time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), one.Since)
	assert.Equal(t, []string{"escalated from verification: tests failed five times"}, board.Items[0].Stuck)
	assert.Equal(t, []string{"blocked: design.md is missing"}, board.Items[2].Stuck)
	assert.Contains(t, board.Items[3].Stuck[0], "paused")

	only, err := svc.Board(ctx, BoardRequest{Repo: "/repos/b", State: BoardBlocked})
	require.NoError(t, err)
	require.Len(t, only.Items, 1)
	assert.Equal(t, "issue-4", only.Items[0].WorkItem)
	_, err = svc.Board(ctx, BoardRequest{State: "asleep"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorContains(t, err, `state "asleep" is not one of escalated, waiting for a human`)
}

// TestBoardShowsTheConditionsThatHoldAnItem: a condition raised and not
// cleared is in the item's stuck column as graph status words it; a
// cleared one, another item's, and a completed item's are not.
func TestBoardShowsTheConditionsThatHoldAnItem(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	h := store.NewHandle(db)
	now := time.Date(2026, 5, 1, 9, 10, 0, 0, time.UTC)
	svc := testService(t, config.Default(), Deps{Store: h, Clock: func() time.Time { return now }})
	st, err := h.Writable(ctx)
	require.NoError(t, err)
	seedBoardItem(t, st, "/repos/a", "issue-1", "implementation", nil)
	seedBoardItem(t, st, "/repos/a", "issue-2", "design", nil)
	seedBoardItem(t, st, "/repos/a", "issue-3", "complete", nil)
	push := runtime.Condition{Kind: "push-refused", Since: "2026-05-01T09:00:00Z", Message: "the remote refused the push", Clears: "clears once a push goes through"}
	tree := runtime.Condition{Kind: "tree", Since: "2026-05-01T08:00:00Z", Message: "the tree was deleted"}
	stored := func(evs ...runtime.EventRecord) []store.Event {
		var out []store.Event
		for _, e := range evs {
			data, err := json.Marshal(e.Data)
			require.NoError(t, err)
			out = append(out, store.Event{Name: e.Name, Data: data})
		}
		return out
	}
	require.NoError(t, st.AppendEvents(ctx, "/repos/a", "issue-1", stored(
		runtime.ConditionEvent(runtime.EventConditionRaised, tree), runtime.ConditionEvent(runtime.EventConditionRaised, push),
		runtime.ConditionEvent(runtime.EventConditionCleared, tree))))
	require.NoError(t, st.AppendEvents(ctx, "/repos/a", "issue-3", stored(runtime.ConditionEvent(runtime.EventConditionRaised, push))))

	board, err := svc.Board(ctx, BoardRequest{})
	require.NoError(t, err)
	stuck := map[string][]string{}
	for _, it := range board.Items {
		stuck[it.WorkItem] = it.Stuck
	}
	assert.Equal(t, []string{"`push-refused` since 2026-05-01 09:00:00 UTC, 10m0s ago: the remote refused the push — clears once a push goes through"}, stuck["issue-1"])
	assert.Empty(t, stuck["issue-2"], "another item's condition is not this one's")
	assert.Empty(t, stuck["issue-3"], "a completed item is stuck nowhere")
}

// TestBoardItemReadsOneItem: the item's page data marks the pointer,
// judges decisions, lists sessions newest first with the transcript's
// tail redacted, and pages the event log newest first.
func TestBoardItemReadsOneItem(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	h := store.NewHandle(db)
	svc := testService(t, config.Default(), Deps{Store: h, Clock: time.Now})
	st, err := h.Writable(ctx)
	require.NoError(t, err)
	seedBoardItem(t, st, "/repos/a", "issue-7", "implementation", func(s *runtime.State) {
		s.Nodes["brainstorming"] = &runtime.NodeRecord{Outcome: "skipped"}
		s.Decisions = map[string]*runtime.Decision{"phase-selection": {Node: "phase-selection", Kind: "phase-selection", By: "alice", At: "2026-05-01T07:00:00Z", Signature: "hmac-sha256:bogus"}}
	})
	seedBoardItem(t, st, "/repos/a", "issue-7/pr-loops/pr-9", "ci-wait", func(s *runtime.State) { s.Loop = "pdlc-pr-loop" })
	for i := range 120 {
		require.NoError(t, st.AppendEvents(ctx, "/repos/a", "issue-7", []store.Event{{Name: fmt.Sprintf("e.%d", i)}}))
	}
	t.Setenv("THE_LOOP_TEST_SECRET_TOKEN", "sekrit-value-123")
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte("line one\nthe token is sekrit-value-123\n"), 0o600))
	require.NoError(t, st.StartSession(ctx, store.Session{ID: "s-9", Repo: "/repos/a", WorkItem: "issue-7", Node: "implementation", Harness: "claude",
		Argv: []string{"claude"}, Attempt: 1, StartedAt: time.Now(), Transcript: transcript}))

	res, err := svc.BoardItem(ctx, BoardItemRequest{Repo: "/repos/a", WorkItem: "issue-7"})
	require.NoError(t, err)
	require.Len(t, res.Loops, 2, "the pull request's loop is nested")
	assert.True(t, res.Loops[0].Nodes["implementation"].Current)
	assert.True(t, res.Loops[0].Nodes["brainstorming"].Skipped)
	assert.Equal(t, "pr-loops/pr-9", res.Loops[1].Title)
	require.Len(t, res.Decisions, 1)
	assert.NotEqual(t, "verified", res.Decisions[0].Trust, "a bogus signature never reads as verified")
	require.Len(t, res.Sessions, 1)
	assert.Equal(t, []string{"line one", "the token is [redacted]"}, res.Tail)
	assert.Equal(t, 121, res.Total)
	require.Len(t, res.Events, DefaultEventPage)
	assert.Equal(t, "e.119", res.Events[0].Name, "newest first")
	older, err := svc.BoardItem(ctx, BoardItemRequest{Repo: "/repos/a", WorkItem: "issue-7", Before: res.Older})
	require.NoError(t, err)
	assert.Equal(t, "e.69", older.Events[0].Name)

	_, err = svc.BoardItem(ctx, BoardItemRequest{Repo: "/repos/a", WorkItem: "issue-8"})
	assert.ErrorIs(t, err, ErrUnknownItem)
}
