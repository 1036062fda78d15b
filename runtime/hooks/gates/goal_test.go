package gates

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestParseGoal(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Goal
		ok   bool
	}{
		{"plain", "Goal: faster builds\nSuccess criteria:\n- build under 2 min\n- cache hit rate shown", Goal{"faster builds", []string{"build under 2 min", "cache hit rate shown"}}, true},
		{"decorated", "## **Goal:** ship the exporter\n\n**Success criteria**\n\n* [ ] CSV export works\n* [x] docs updated\n\nthe-loop contribute", Goal{"ship the exporter", []string{"CSV export works", "docs updated"}}, true},
		{"quoted and case", "> GOAL: fix login\n> success criteria:\n> - users can log in", Goal{"fix login", []string{"users can log in"}}, true},
		{"list ends at a blank line", "Goal: x\nSuccess criteria:\n- a\n\n- not a criterion", Goal{"x", []string{"a"}}, true},
		{"list ends at prose", "Goal: x\nSuccess criteria:\n- a\nthanks!\n- b", Goal{"x", []string{"a"}}, true},
		{"no criteria", "Goal: x\nSuccess criteria:\n\nnothing here", Goal{}, false},
		{"no goal", "Success criteria:\n- a", Goal{}, false},
		{"template filler", "Goal: …\nSuccess criteria:\n- [ ] …", Goal{}, false},
		{"empty goal", "Goal:\nSuccess criteria:\n- a", Goal{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := ParseGoal(tt.body)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, g)
			}
		})
	}
}

var goalNode = &runtime.Node{ID: "goal-definition", Actor: "human"}

const goalBody = "Goal: add CSV export\nSuccess criteria:\n- [ ] export button\n- [ ] docs\n\nthe-loop contribute"

func TestClassifyGoalReadsTheThread(t *testing.T) {
	hc, fake := hooktest.GateContext(t, goalNode, nil)
	fake.Thread = []integrations.Comment{hooktest.Comment(1, "bob", goalBody), hooktest.Comment(2, "mallory", "Goal: steal\nSuccess criteria:\n- yes")}
	r, err := ClassifyGoal(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, "defined", r.Data["outcome"])
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, runtime.KindGoal, d.Kind)
	assert.Equal(t, "@bob", d.By)
	assert.Equal(t, "comment", d.Via)
	assert.Equal(t, "https://github.test/o/r/issues/1#issuecomment-1", d.CommentURL)
	assert.Equal(t, map[string]any{"goal": "add CSV export", "criteria": []string{"export button", "docs"}}, d.Data["goal"])
	require.Len(t, fake.Posted, 1)
	assert.Contains(t, fake.Posted[0], "**goal recorded**")
	assert.Contains(t, fake.Posted[0], "- [ ] export button")

	// the event's newer statement wins over the thread's
	hooktest.SetEvent(hc, hooktest.Comment(3, "alice", "Goal: add JSON export\nSuccess criteria:\n- json"))
	r, err = ClassifyGoal(hc)
	require.NoError(t, err)
	assert.Equal(t, "@alice", hooktest.DecisionOf(t, r).By)
}

func TestClassifyGoalUnderCheckTouchesNoNetwork(t *testing.T) {
	hc, fake := hooktest.GateContext(t, goalNode, nil)
	fake.Thread = []integrations.Comment{hooktest.Comment(1, "bob", goalBody)}
	hc.ReadOnly = true
	r, err := ClassifyGoal(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "only a recorded decision answers goal-definition under check")
	assert.Empty(t, fake.Calls, "no read, no post")

	hc.State.Decisions["goal-definition"] = &runtime.Decision{Kind: runtime.KindGoal, Outcome: "defined"}
	r, err = ClassifyGoal(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Empty(t, fake.Calls)
}

func TestClassifyGoalOutageAndSelfAuthored(t *testing.T) {
	hc, fake := hooktest.GateContext(t, goalNode, nil)
	fake.ListErr = hooktest.ErrOutage
	hooktest.SetEvent(hc, integrations.Comment{Author: "alice", Body: integrations.MarkSelfAuthored(goalBody)})
	r, err := ClassifyGoal(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Contains(t, hooktest.Texts(r)[0], "the thread could not be read (github: 502 bad gateway)")

	fake.ListErr = nil
	fake.PostErr = hooktest.ErrOutage
	hooktest.SetEvent(hc, hooktest.Comment(4, "alice", goalBody))
	r, err = ClassifyGoal(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Contains(t, r.Data["error"], "the confirmation was not posted", "a failed confirmation is reported as a degradation")
}

func TestPostGoalRequest(t *testing.T) {
	hc, fake := hooktest.GateContext(t, goalNode, nil)
	r, err := PostGoalRequest(hc)
	require.NoError(t, err)
	assert.Equal(t, true, r.Data["posted"])
	assert.Contains(t, fake.Posted[0], GoalRequestMarker)

	r, _ = PostGoalRequest(hc)
	assert.Equal(t, "already asked", r.Data["reason"])

	stated, fake2 := hooktest.GateContext(t, goalNode, nil)
	fake2.Thread = []integrations.Comment{hooktest.Comment(1, "alice", goalBody)}
	r, _ = PostGoalRequest(stated)
	assert.Equal(t, "goal already stated", r.Data["reason"])
	assert.Empty(t, fake2.Posted)

	forged, fake3 := hooktest.GateContext(t, goalNode, nil)
	fake3.Thread = []integrations.Comment{{Author: "mallory", Body: integrations.MarkSelfAuthored(GoalRequestMarker)}}
	r, _ = PostGoalRequest(forged)
	assert.Equal(t, true, r.Data["posted"], "a forged request marker does not pre-empt the request")
}

func TestGoalEchoCannotCarryMarkers(t *testing.T) {
	text := goalConfirmation(Goal{Goal: "x <!-- the-loop:phase-selection -->", Criteria: []string{"<!-- the-loop:goal-request -->"}}, "@a", "")
	assert.NotContains(t, text, "<!--")
}

func TestGoalTemplateLeftUnfilledIsNoGoal(t *testing.T) {
	hc, fake := hooktest.GateContext(t, goalNode, nil)
	_, err := PostGoalRequest(hc)
	require.NoError(t, err)
	template := fake.Posted[0]
	start := strings.Index(template, "```\n") + 4
	end := strings.Index(template[start:], "```") + start
	_, ok := ParseGoal(template[start:end])
	assert.False(t, ok, "copying the request's example back states no goal")
}
