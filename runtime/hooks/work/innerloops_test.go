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

// declared is a repository declaration as `graph repos` records it.
func declared(repos ...string) *runtime.Decision {
	list := make([]any, len(repos))
	for i, r := range repos {
		list[i] = r
	}
	return &runtime.Decision{WorkItem: "issue-1", Node: "implementation", Kind: runtime.KindRepos, Via: "cli", By: "(shell)", Data: map[string]any{"repositories": list}}
}

var origin = integrations.Ref{System: "github", Owner: "octo", Repo: "app", Number: 1}

const openSuffix = " — open one with `the-loop pr create --work-item issue-1 --repository OWNER/REPO`"

func TestAwaitInnerLoops(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		ref    integrations.Ref
		origin string
		repos  *runtime.Decision
		links  []*runtime.PullRequestLink
		asks   []*runtime.PullAsk
		files  map[string]string
		status runtime.Status
		want   []string
		data   map[string]any
	}{
		{
			name:   "no declaration holds an item without a pull request in its origin repository",
			ref:    origin,
			status: runtime.Wait,
			want:   []string{"1 the origin repository has no pull request yet: octo/app" + openSuffix + waitSuffix},
			data: map[string]any{"inner_loops": 0, "declared": false, "required": []string{"octo/app"},
				"pending": []string(nil), "missing_repos": []string{"octo/app"}},
		},
		{
			name:   "no declaration and no origin holds the item and says how to declare",
			status: runtime.Wait,
			want: []string{"no repository is declared and the origin repository is unknown, so nothing says where this item's code lands: " +
				"declare the repositories with `the-loop graph repos issue-1 --repository OWNER/REPO`, or set `ticketing.github.owner`/`.repo`"},
		},
		{
			name:   "a declaration of none passes with no pull request",
			repos:  declared(),
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 0, "declared": true, "required": []string{}},
		},
		{
			name:   "the repository config names the origin",
			origin: "octo/app",
			files:  map[string]string{"pr-loops/pr-16/work-item-state.json": stateJSON("complete")},
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 1, "declared": false, "required": []string{"octo/app"}},
		},
		{
			name: "every loop complete passes",
			ref:  origin,
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json":        stateJSON("complete"),
				"pr-loops/octo__infra/pr-7/graph-state.json": stateJSON("complete"),
			},
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 2, "declared": false, "required": []string{"octo/app"}},
		},
		{
			name: "pending loops wait, labelled and sorted",
			ref:  origin,
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
			data: map[string]any{"inner_loops": 3, "declared": false, "required": []string{"octo/app"},
				"pending": []string{"octo__infra/pr-7", "pr-16"}, "missing_repos": []string(nil)},
		},
		{
			name:   "a corrupt inner state holds the gate rather than passing it",
			ref:    origin,
			files:  map[string]string{"pr-loops/pr-16/graph-state.json": "{not json"},
			status: runtime.Wait,
			want:   []string{"waiting for 1 inner loop(s) to finish: pr-16" + waitSuffix},
		},
		{
			name: "the current state file wins over the legacy one",
			ref:  origin,
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json": stateJSON("complete"),
				"pr-loops/pr-16/graph-state.json":     stateJSON("implementation"),
			},
			status: runtime.Pass,
		},
		{
			name:   "a declared repository without an inner loop waits",
			ref:    origin,
			repos:  declared("octo/app", "octo/infra"),
			files:  map[string]string{"pr-loops/pr-16/work-item-state.json": stateJSON("complete")},
			status: runtime.Wait,
			want:   []string{"1 declared repository(ies) have no pull request yet: octo/infra" + openSuffix + waitSuffix},
			data: map[string]any{"inner_loops": 1, "declared": true, "required": []string{"octo/app", "octo/infra"},
				"pending": []string(nil), "missing_repos": []string{"octo/infra"}},
		},
		{
			name:   "a pull request a session asked for is named while it waits",
			ref:    origin,
			asks:   []*runtime.PullAsk{{By: "mcp"}},
			status: runtime.Wait,
			want: []string{"1 the origin repository has no pull request yet: octo/app" + openSuffix +
				"; a session asked for 1 pull request(s); the poller opens them on its next cycle" + waitSuffix},
		},
		{
			name:   "repositories written in front matter are not read",
			ref:    origin,
			files:  map[string]string{"execution-log.md": "---\nrepos: []\n---\n"},
			status: runtime.Wait,
			want:   []string{"1 the origin repository has no pull request yet: octo/app" + openSuffix + waitSuffix},
		},
		{
			name:   "the originRepo param names the origin",
			params: map[string]any{"originRepo": "Octo/App"},
			repos:  declared("octo/app", "octo/infra"),
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json":        stateJSON("complete"),
				"pr-loops/octo__infra/pr-2/graph-state.json": stateJSON("complete"),
			},
			status: runtime.Pass,
			data:   map[string]any{"inner_loops": 2, "declared": true, "required": []string{"octo/app", "octo/infra"}},
		},
		{
			name:   "an unknown origin cannot own top-level loops",
			ref:    integrations.Ref{System: "jira", Key: "PROJ-1"},
			repos:  declared("octo/app"),
			files:  map[string]string{"pr-loops/pr-16/work-item-state.json": stateJSON("complete")},
			status: runtime.Wait,
			want: []string{"1 declared repository(ies) have no pull request yet: octo/app" + openSuffix + "; " +
				"the origin repository is unknown (set `ticketing.github.owner`/`.repo`), so pr-loops/pr-<n>/ cannot be attributed to a repository" + waitSuffix},
		},
		{
			name:  "a pull request closed without merging neither holds the item nor counts for its repository",
			ref:   origin,
			repos: declared("octo/app", "octo/infra"),
			links: []*runtime.PullRequestLink{{Repo: "octo/infra", Number: 7, State: runtime.PullClosed, InnerLoop: "pr-loops/octo__infra/pr-7"}},
			files: map[string]string{
				"pr-loops/pr-16/work-item-state.json":        stateJSON("complete"),
				"pr-loops/octo__infra/pr-7/graph-state.json": stateJSON("implementation"),
			},
			status: runtime.Wait,
			want:   []string{"1 declared repository(ies) have no pull request yet: octo/infra" + openSuffix + waitSuffix},
			data: map[string]any{"inner_loops": 1, "declared": true, "required": []string{"octo/app", "octo/infra"}, "abandoned": []string{"octo__infra/pr-7"},
				"pending": []string(nil), "missing_repos": []string{"octo/infra"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, tt.params)
			hc.TicketRef = tt.ref
			hc.Origin = tt.origin
			hc.State = runtime.NewState("issue-1")
			hc.State.Repos, hc.State.PullRequests, hc.State.PullAsks = tt.repos, tt.links, tt.asks
			for n, text := range tt.files {
				hooktest.WriteArtifact(t, hc, n, text)
			}
			r, err := AwaitInnerLoops(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			if tt.want != nil {
				assert.Equal(t, tt.want, hooktest.NilIfEmpty(hooktest.Texts(r)))
			}
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

// An escalated inner loop is named with why it escalated and the exact
// operator command that resumes it — for the origin repository's pull
// request and for another repository's.
func TestAwaitInnerLoopsNamesAnEscalatedLoopAndItsResume(t *testing.T) {
	esc := func(from, reason string) string {
		return `{"version": 1, "workItem": "issue-1", "currentNode": "escalated", "escalation": {"from": "` + from + `", "reason": "` + reason + `"}}` + "\n"
	}
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, nil)
	hc.TicketRef = origin
	hooktest.WriteArtifact(t, hc, "pr-loops/pr-2/work-item-state.json", esc("reviewer-briefing", "reviewer-briefing failed 3 time(s)\\n(maxAttempts 3)"))
	hooktest.WriteArtifact(t, hc, "pr-loops/octo__infra/pr-7/work-item-state.json", esc("implementation", "the session ended 4 times"))
	r, err := AwaitInnerLoops(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	require.Len(t, r.Messages, 1)
	msg := r.Messages[0].Text
	assert.Contains(t, msg, "waiting for 2 inner loop(s) to finish: octo__infra/pr-7, pr-2")
	assert.Contains(t, msg, "octo__infra/pr-7 is escalated from implementation (the session ended 4 times); an operator resumes it with "+
		"`the-loop graph force issue-1 --pr 7 --pr-repo octo/infra --to implementation --reason \"…\"`")
	assert.Contains(t, msg, "pr-2 is escalated from reviewer-briefing (reviewer-briefing failed 3 time(s) (maxAttempts 3)); an operator resumes it with "+
		"`the-loop graph force issue-1 --pr 2 --to reviewer-briefing --reason \"…\"`")
}
