package work

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const waitSuffix = " — each pull request completes its pdlc-pr-loop (docs/specs/<id>/pr-loops/) before the work item moves past implementation"

func stateJSON(current string) string {
	if current == "complete" {
		return `{"version": 1, "workItem": "issue-1", "currentNode": "complete", "decisions": {"pr-approval": {"node": "pr-approval", "kind": "gate", "outcome": "approved", "by": "@alice"}}}` + "\n"
	}
	return `{"version": 1, "workItem": "issue-1", "currentNode": "` + current + `"}` + "\n"
}

// A hand-written "complete" pointer is not a finished inner loop: its
// pull-request approval must be a decision this loop honours.
func TestInnerLoopNeedsAnHonouredApproval(t *testing.T) {
	for _, tt := range []struct {
		name, state string
		key         []byte
		want        runtime.Status
	}{
		{"pointer only", `{"workItem": "issue-1", "currentNode": "complete"}`, nil, runtime.Wait},
		{"unsigned approval without a key", stateJSON("complete"), nil, runtime.Pass},
		{"unsigned approval with a key", stateJSON("complete"), []byte("k"), runtime.Wait},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, nil)
			hc.Signer = runtime.NewSigner(tt.key)
			hooktest.WriteArtifact(t, hc, "pr-loops/pr-7/work-item-state.json", tt.state)
			r, err := AwaitInnerLoops(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Status)
		})
	}
}

func TestAwaitInnerLoops(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		ref    integrations.Ref
		files  map[string]string
		status runtime.Status
		want   []string
		data   map[string]any
	}{
		{
			name:   "nothing started and nothing declared passes",
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 0, "declared": 0},
		},
		{
			name: "every loop complete passes",
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json":        stateJSON("complete"),
				"pr-loops/octo__infra/pr-7/graph-state.json": stateJSON("complete"),
			},
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 2, "declared": 0},
		},
		{
			name: "pending loops wait, labelled and sorted",
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json":         stateJSON("verification"),
				"pr-loops/pr-3/graph-state.json":              stateJSON("complete"),
				"pr-loops/octo__infra/pr-7/graph-state.json":  stateJSON("pr-approval"),
				"pr-loops/pr-99/notes.md":                     "no state here",
				"pr-loops/.hidden/pr-1/work-item-state.json":  stateJSON("implementation"),
				"pr-loops/octo__infra/notes/graph-state.json": stateJSON("implementation"),
			},
			status: runtime.Wait,
			want:   []string{"waiting for 2 inner loop(s) to finish: octo__infra/pr-7, pr-16" + waitSuffix},
			data:   map[string]any{"inner_loops": 3, "pending": []string{"octo__infra/pr-7", "pr-16"}, "missing_repos": []string(nil)},
		},
		{
			name:   "a corrupt inner state holds the gate rather than passing it",
			files:  map[string]string{"pr-loops/pr-16/graph-state.json": "{not json"},
			status: runtime.Wait,
			want:   []string{"waiting for 1 inner loop(s) to finish: pr-16" + waitSuffix},
		},
		{
			name: "the current state file wins over the legacy one",
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json": stateJSON("complete"),
				"pr-loops/pr-16/graph-state.json":     stateJSON("implementation"),
			},
			status: runtime.Pass,
		},
		{
			name: "a declared repository without an inner loop waits",
			ref:  integrations.Ref{System: "github", Owner: "octo", Repo: "app", Number: 1},
			files: map[string]string{
				"execution-log.md":                    "---\nrepos: [octo/app, ' octo/infra ', '']\n---\n",
				"pr-loops/pr-16/work-item-state.json": stateJSON("complete"),
			},
			status: runtime.Wait,
			want:   []string{"1 declared repository(ies) have no inner loop yet: octo/infra" + waitSuffix},
			data:   map[string]any{"inner_loops": 1, "pending": []string(nil), "missing_repos": []string{"octo/infra"}},
		},
		{
			name:   "the originRepo param names the origin",
			params: map[string]any{"originRepo": "Octo/App"},
			files: map[string]string{
				"execution-log.md":                           "---\nrepos: [octo/app, octo/infra]\n---\n",
				"pr-loops/pr-16/work-item-state.json":        stateJSON("complete"),
				"pr-loops/octo__infra/pr-2/graph-state.json": stateJSON("complete"),
			},
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 2, "declared": 2},
		},
		{
			name: "an unknown origin cannot own top-level loops",
			ref:  integrations.Ref{System: "jira", Key: "PROJ-1"},
			files: map[string]string{
				"execution-log.md":                    "---\nrepos: [octo/app]\n---\n",
				"pr-loops/pr-16/work-item-state.json": stateJSON("complete"),
			},
			status: runtime.Wait,
			want: []string{"1 declared repository(ies) have no inner loop yet: octo/app; " +
				"the origin repository is unknown (set `ticketing.github.owner`/`.repo`), so pr-loops/pr-<n>/ cannot be attributed to a repository" + waitSuffix},
		},
		{
			name:   "a malformed repos entry blocks",
			files:  map[string]string{"execution-log.md": "---\nrepos: [octo/app, just-a-name]\n---\n"},
			status: runtime.Block,
			want: []string{"execution-log.md declares a repository the-loop cannot use: repository must be <owner>/<repo>: \"just-a-name\". " +
				"`repos:` entries are <owner>/<repo>. (docs/specs/issue-1/execution-log.md)"},
			data: map[string]any{"declared": 1},
		},
		{
			name:   "repos that is not a list is ignored",
			files:  map[string]string{"execution-log.md": "---\nrepos: octo/app\n---\n"},
			status: runtime.Pass,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, tt.params)
			hc.TicketRef = tt.ref
			for n, text := range tt.files {
				hooktest.WriteArtifact(t, hc, n, text)
			}
			r, err := AwaitInnerLoops(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.Equal(t, tt.want, hooktest.NilIfEmpty(hooktest.Texts(r)))
			if tt.data != nil {
				assert.Equal(t, tt.data, r.Data)
			}
		})
	}
}

func TestRepoStateKey(t *testing.T) {
	key, err := repoStateKey("octo/infra")
	require.NoError(t, err)
	assert.Equal(t, "octo__infra", key)
	for in, want := range map[string]string{
		"solo":        `repository must be <owner>/<repo>: "solo"`,
		"octo/..":     `unusable repository segment ".." in "octo/.."`,
		"octo/a b":    `unusable repository segment "a b" in "octo/a b"`,
		"octo//infra": `unusable repository segment "" in "octo//infra"`,
	} {
		_, err := repoStateKey(in)
		assert.EqualError(t, err, want)
	}
}

func TestAwaitInnerLoopsRejectsABadOriginParam(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, map[string]any{"originRepo": "../x"})
	_, err := AwaitInnerLoops(hc)
	assert.ErrorContains(t, err, "originRepo: ")
}
