package continuity

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatusLastCompletedOnlyFromDoneEntries(t *testing.T) {
	s, c := newLive(t)
	steps := []struct {
		name      string
		entry     Entry
		last      string   // Status().LastCompleted after the step
		openTasks []string // Status().OpenTasks after the step
	}{
		{"an open task is not completed", Entry{Kind: KindTask, Node: "t1", Status: StatusOpen, Text: "write tests"},
			"none", []string{"t1 [open]: write tests"}},
		{"a discovery completes nothing", Entry{Kind: KindDiscovery, Text: "dates come in two formats"},
			"none", []string{"t1 [open]: write tests"}},
		{"a blocker holds the task", Entry{Kind: KindBlocker, Text: "need samples", Blocks: "t1"},
			"none", []string{"t1 [blocked]: write tests"}},
		{"a decision is done when made", Entry{Kind: KindDecision, Text: "use synthetic samples", Resolves: "b1"},
			"decision d1: use synthetic samples", []string{"t1 [open]: write tests"}},
		{"a phase boundary completes nothing", Entry{Kind: KindPhase, Text: "implementation"},
			"decision d1: use synthetic samples", []string{"t1 [open]: write tests"}},
		{"a second open task", Entry{Kind: KindTask, Text: "wire the CLI"},
			"decision d1: use synthetic samples", []string{"t1 [open]: write tests", "t2 [open]: wire the CLI"}},
		{"finishing a task completes it", Entry{Kind: KindTask, Node: "t1", Status: StatusDone},
			"task t1 (done): write tests", []string{"t2 [open]: wire the CLI"}},
		{"reopening it takes it back", Entry{Kind: KindTask, Node: "t1", Status: StatusOpen},
			"decision d1: use synthetic samples", []string{"t1 [open]: write tests", "t2 [open]: wire the CLI"}},
	}
	for _, st := range steps {
		c.advance(time.Minute)
		_, err := s.Update(st.entry)
		require.NoError(t, err, st.name)
		rep, err := s.Status()
		require.NoError(t, err, st.name)
		assert.Equal(t, st.last, rep.LastCompleted, st.name)
		assert.Equal(t, st.openTasks, rep.OpenTasks, st.name)
		dp, _, _ := loadParts(t, s)
		assert.NotContains(t, dp.LastCompleted, "(open)", "%s: the death point never calls an open item completed", st.name)
		assert.NotContains(t, dp.LastCompleted, "(blocked)", st.name)
	}
}

func TestStatusLastCompletedAfterEnding(t *testing.T) {
	tests := []struct {
		result string
		want   string
	}{
		{"parser merged", "goal completed: parser merged"},
		{"", "goal completed"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			s, _ := newLive(t)
			_, err := s.Update(Entry{Kind: KindTask, Text: "parser"})
			require.NoError(t, err)
			_, err = s.End(EndOptions{Kind: EndCompleted, Result: tt.result})
			require.NoError(t, err)
			rep, err := s.Status()
			require.NoError(t, err)
			assert.Equal(t, StatusCompleted, rep.State)
			assert.Equal(t, tt.want, rep.LastCompleted)
			assert.Empty(t, rep.OpenTasks, "a completed set defers every open task")
			dp, notes, _ := loadParts(t, s)
			assert.Equal(t, tt.want, dp.LastCompleted)
			assert.Equal(t, StatusCompleted, dp.Status, "the ending marker is set with or without a result")
			last := notes.Records[len(notes.Records)-1]
			assert.Equal(t, kindCompleted, last.Kind)
			assert.Contains(t, last.Text, "Result: "+orText(tt.result, defaultResult))
		})
	}
}

func TestStatusIgnoresMislabelledDeathPoint(t *testing.T) {
	s, _ := newLive(t)
	_, err := s.Update(Entry{Kind: KindTask, Node: "t1", Text: "write tests"})
	require.NoError(t, err)
	// A death point written by an earlier build recorded the open task as
	// the last completed action.
	dp, _, _ := loadParts(t, s)
	dp.LastCompleted = "task t1 (open): write tests"
	require.NoError(t, os.WriteFile(setFile(s, DeathPointFile), dp.render(), 0o644))
	rep, err := s.Status()
	require.NoError(t, err)
	assert.Equal(t, "none", rep.LastCompleted, "the notes, not the stale label, decide what is done")
	assert.Equal(t, []string{"t1 [open]: write tests"}, rep.OpenTasks)
}
