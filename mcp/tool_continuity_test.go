package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/continuity"
)

// liveCheckout is a git checkout with a live continuity set, started the
// way `the-loop continuity init` starts one.
func liveCheckout(t *testing.T) string {
	t.Helper()
	dir := gitCheckout(t)
	set, err := continuity.Open(dir)
	require.NoError(t, err)
	_, err = set.Init(continuity.InitOptions{Goal: "ship the widget importer", Scope: "importer package only"})
	require.NoError(t, err)
	return dir
}

func TestContinuityUpdateTool(t *testing.T) {
	dir := liveCheckout(t)
	c := loopClient(t, newLoopService(t, dir))

	res := callTool(t, c, "continuity_update", map[string]any{
		"kind": "decision", "text": "parse with encoding/csv", "why": "no new dependency", "files": []any{"importer/parse.go"}, "next": "write the parser tests",
	})
	require.False(t, res.IsError, resultText(t, res))
	got := structured(t, res)
	assert.Equal(t, "decision", got["kind"])
	assert.Equal(t, "active", got["status"])
	assert.EqualValues(t, 2, got["revision"])
	assert.Equal(t, "write the parser tests", got["nextAction"])
	assert.Equal(t, ".handoff/continuity/death-point.md", got["deathPoint"])
	assert.Contains(t, resultText(t, res), "recorded decision d1 (done); revision 2")

	notes, err := os.ReadFile(filepath.Join(dir, ".handoff", "continuity", "notes.md"))
	require.NoError(t, err)
	assert.Contains(t, string(notes), "parse with encoding/csv", "the fact is flushed to the notes")

	res = callTool(t, c, "continuity_update", map[string]any{"kind": "task", "text": "write the parser tests", "node": "t1", "status": "open"})
	require.False(t, res.IsError, resultText(t, res))
	res = callTool(t, c, "continuity_update", map[string]any{"kind": "blocker", "text": "fixture CSV is missing", "blocks": "t1"})
	require.False(t, res.IsError, resultText(t, res))
	got = structured(t, res)
	assert.EqualValues(t, 4, got["revision"])
	assert.NotEmpty(t, got["blockers"])
	assert.Contains(t, resultText(t, res), "blocker: ")

	// A status change of an existing task needs no text.
	res = callTool(t, c, "continuity_update", map[string]any{"kind": "task", "node": "t1", "status": "done"})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "done", structured(t, res)["nodeStatus"])
}

func TestContinuityUpdateToolConcurrentCallsLoseNothing(t *testing.T) {
	dir := liveCheckout(t)
	c := loopClient(t, newLoopService(t, dir))
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res := callTool(t, c, "continuity_update", map[string]any{"kind": "discovery", "text": "finding " + strings.Repeat("x", i)})
			if res.IsError {
				errs <- resultText(t, res)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	st, err := mustOpen(t, dir).Status()
	require.NoError(t, err)
	assert.Equal(t, 1+n, st.Revision, "every concurrent update landed")
}

func mustOpen(t *testing.T, dir string) *continuity.Set {
	t.Helper()
	set, err := continuity.Open(dir)
	require.NoError(t, err)
	return set
}

func TestContinuityUpdateToolRefusals(t *testing.T) {
	live := liveCheckout(t)
	fresh := gitCheckout(t)
	notGit := t.TempDir()
	tests := []struct {
		name string
		repo string
		args map[string]any
		want string
	}{
		{"no live set", fresh, map[string]any{"kind": "decision", "text": "x"}, "no live continuity set: start one with `the-loop continuity init --goal TEXT`"},
		{"not a git checkout", notGit, map[string]any{"kind": "decision", "text": "x"}, "is not inside a git repository"},
		{"unknown kind", live, map[string]any{"kind": "idea", "text": "x"}, `argument "kind" must be one of decision, discovery, task, blocker, phase`},
		{"no kind", live, map[string]any{"text": "x"}, `missing required argument "kind"`},
		{"no text and no node", live, map[string]any{"kind": "decision"}, "give text (the changed fact), or node with status"},
		{"status outside the enum", live, map[string]any{"kind": "task", "text": "x", "status": "wip"}, `argument "status" must be one of open, done, blocked`},
		{"status on a decision", live, map[string]any{"kind": "decision", "text": "x", "status": "done"}, "status applies only to task and blocker entries"},
		{"dependsOn on a decision", live, map[string]any{"kind": "decision", "text": "x", "dependsOn": []any{"t1"}}, "dependsOn applies only to task entries"},
		{"bad node id", live, map[string]any{"kind": "task", "text": "x", "node": "../t1"}, `node id "../t1" must be letters`},
		{"files not a list", live, map[string]any{"kind": "decision", "text": "x", "files": "a.go"}, `argument "files" must be a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := loopClient(t, newLoopService(t, tt.repo))
			before := treeSnapshot(t, tt.repo)
			res := callTool(t, c, "continuity_update", tt.args)
			require.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
			if tt.repo != fresh {
				assert.Equal(t, before, treeSnapshot(t, tt.repo), "a refused update writes nothing")
			}
		})
	}
}

func TestContinuityBriefTool(t *testing.T) {
	dir := liveCheckout(t)
	svc := newLoopService(t, dir)
	c := loopClient(t, svc)
	callTool(t, c, "continuity_update", map[string]any{"kind": "decision", "text": "parse with encoding/csv", "why": "no new dependency"})
	before := treeSnapshot(t, dir)

	res := callTool(t, c, "continuity_brief", map[string]any{})
	require.False(t, res.IsError, resultText(t, res))
	b := structured(t, res)
	text := resultText(t, res)
	assert.Equal(t, b["text"], text, "the text content is the brief itself")
	assert.Contains(t, text, "ship the widget importer")
	assert.Contains(t, text, "parse with encoding/csv")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(text), continuity.ContinuationLine))
	assert.LessOrEqual(t, len(text), continuity.BriefBudget)
	assert.EqualValues(t, len(text), b["bytes"])
	assert.Equal(t, "active", b["continuityStatus"])
	assert.NotContains(t, b, "path", "the brief is returned, not written")
	assert.Equal(t, before, treeSnapshot(t, dir), "continuity_brief is read-only")

	res = callTool(t, c, "continuity_brief", map[string]any{"budget": 2000})
	require.False(t, res.IsError, resultText(t, res))
	assert.LessOrEqual(t, len(resultText(t, res)), 2000)
}

func TestContinuityBriefToolRefusals(t *testing.T) {
	live := liveCheckout(t)
	tests := []struct {
		name string
		repo string
		args map[string]any
		want string
	}{
		{"no live set", gitCheckout(t), map[string]any{}, "no live continuity set to brief"},
		{"unknown source", live, map[string]any{"source": "s-nope"}, `no continuity source has handle "s-nope"`},
		{"excluded project", live, map[string]any{"exclude": []any{"github.com/acme/widgets"}}, "continuity_brief failed"},
		{"budget above the cap", live, map[string]any{"budget": 7000}, `argument "budget" must be at most 6144`},
		{"budget below one", live, map[string]any{"budget": 0}, `argument "budget" must be at least 1`},
		{"out is not offered", live, map[string]any{"out": "brief.md"}, `unknown argument "out"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := loopClient(t, newLoopService(t, tt.repo))
			res := callTool(t, c, "continuity_brief", tt.args)
			require.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
		})
	}
}

func TestContinuityPromptTool(t *testing.T) {
	dir := liveCheckout(t)
	c := loopClient(t, newLoopService(t, dir))
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	before := treeSnapshot(t, dir)

	res := callTool(t, c, "continuity_prompt", map[string]any{
		"task":       "Review the importer's error handling and propose a smaller fix.",
		"context":    []any{"see " + filepath.Join(home, "private", "notes.txt")},
		"validation": []any{"run the importer unit tests"},
		"nonGoals":   []any{"rewriting the parser"},
	})
	require.False(t, res.IsError, resultText(t, res))
	p := structured(t, res)
	text := resultText(t, res)
	assert.Equal(t, p["text"], text, "the text content is the prompt itself")
	assert.Contains(t, text, "Review the importer's error handling")
	assert.Contains(t, text, "goal: ship the widget importer", "the live record's goal is carried")
	assert.Contains(t, text, "Non-goal: rewriting the parser")
	assert.Contains(t, text, "- run the importer unit tests")
	assert.NotContains(t, text, home, "no path outside the repository leaks into the prompt")
	assert.NotEmpty(t, p["omitted"], "the dropped line is reported")
	assert.Equal(t, false, p["copied"], "the server never touches a clipboard")
	assert.Equal(t, before, treeSnapshot(t, dir), "continuity_prompt is read-only")

	// No live set is fine: the prompt is built from the arguments alone.
	c = loopClient(t, newLoopService(t, gitCheckout(t)))
	res = callTool(t, c, "continuity_prompt", map[string]any{"task": "Check the release notes for the 2.0 tag."})
	require.False(t, res.IsError, resultText(t, res))
	assert.Contains(t, resultText(t, res), "(needs user input: constraints and ownership boundaries)")
}

func TestContinuityPromptToolRefusals(t *testing.T) {
	tests := []struct {
		name string
		repo string
		args map[string]any
		want string
	}{
		{"no task", gitCheckout(t), map[string]any{}, `missing required argument "task"`},
		{"blank task", gitCheckout(t), map[string]any{"task": "  "}, `argument "task" is empty`},
		{"not a git checkout", t.TempDir(), map[string]any{"task": "review it"}, "is not inside a git repository"},
		{"allowPaths mistyped", gitCheckout(t), map[string]any{"task": "review it", "allowPaths": "yes"}, `argument "allowPaths" must be true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := loopClient(t, newLoopService(t, tt.repo))
			res := callTool(t, c, "continuity_prompt", tt.args)
			require.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
		})
	}
}
