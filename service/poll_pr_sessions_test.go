package service

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// prSessionRig polls octo/widgets (issue #1 is the item) and octo/infra,
// each from its own checkout of its own bare remote, with working trees and
// the supervisor; its fake harness keeps every session working (it never
// claims), so the test reads which sessions the poller keeps live.
type prSessionRig struct {
	t      *testing.T
	fake   *providertest.Server
	svc    *Service
	poller *Poller
	sup    *sessions.Supervisor
	trees  string
	ref    integrations.Ref
}

func gitT(t *testing.T, env []string, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// checkoutOf makes a bare remote with main and returns a clone of it.
func checkoutOf(t *testing.T, env []string, base, name, config string) string {
	t.Helper()
	remote, seed, checkout := filepath.Join(base, name+".git"), filepath.Join(base, name+"-seed"), filepath.Join(base, name)
	gitT(t, env, base, "init", "--quiet", "--bare", "--initial-branch=main", remote)
	gitT(t, env, base, "clone", "--quiet", remote, seed)
	writeFile(t, filepath.Join(seed, "README.md"), name+"\n")
	if config != "" {
		writeFile(t, filepath.Join(seed, ".the-loop", "harness-config.yaml"), config)
	}
	gitT(t, env, seed, "add", "-A")
	gitT(t, env, seed, "commit", "--quiet", "-m", "seed")
	gitT(t, env, seed, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	gitT(t, env, base, "clone", "--quiet", remote, checkout)
	return checkout
}

func newPRSessionRig(t *testing.T) *prSessionRig {
	t.Helper()
	fake := providertest.NewGitHub(t)
	fake.SetQuota(1<<30, time.Hour)
	fake.SeedRepo(infra, strings.Repeat("e", 40))
	base, err := os.MkdirTemp("", "tl-prs")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1"}
	widgets := checkoutOf(t, env, base, "widgets", "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n")
	infraCheckout := checkoutOf(t, env, base, "infra", "")

	script := filepath.Join(base, "script")
	writeFile(t, filepath.Join(script, "pr", "implementation", "fake"), "hang-runs=999\n")
	fakeState := filepath.Join(base, "fake")
	require.NoError(t, os.MkdirAll(fakeState, 0o700))
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers, cfg.Routing.SelfLogins = []string{"alice"}, []string{fake.BotLogin()}
	cfg.Polling.Sources = []config.Source{
		{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: widgets},
		{System: "github", Repos: []string{infra}, Checkout: infraCheckout},
	}
	cfg.Harnesses = map[string]harness.Config{"agent": {Adapter: harness.AdapterCommand, Output: harness.OutputStreamJSON, Argv: []string{
		testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness"), "--prompt-file", "{prompt_file}", "--work-item", "{work_item}",
		"--workdir", "{workdir}", "--state", fakeState, "--script", script}}}
	prov, err := github.New(github.Options{BaseURL: fake.URL(), Token: fake.Token()})
	require.NoError(t, err)
	db := store.NewHandle(filepath.Join(base, "state.db"))
	sup, err := sessions.New(cfg.Sessions.SessionLimits, sessions.Deps{Store: HandleRecorder(db), Harnesses: cfg.Harnesses,
		Serve: []string{"/nonexistent/the-loop", "serve"}, StateDir: filepath.Join(base, "state"), Environ: env,
		Lookup: func(k string) (string, bool) {
			for _, kv := range env {
				if name, v, _ := strings.Cut(kv, "="); name == k {
					return v, true
				}
			}
			return "", false
		}})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = sup.Shutdown(ctx)
	})
	r := &prSessionRig{t: t, fake: fake, sup: sup, trees: filepath.Join(base, "trees"),
		ref: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}}
	r.svc = testService(t, cfg, Deps{Store: db, Signer: runtime.NewSigner([]byte("k")), Sessions: sup,
		Providers: func(string) (integrations.Provider, error) { return prov, nil },
		Trees:     NewTrees(r.trees, workspace.Options{Env: env, Identity: workspace.Identity{Name: "the-loop", Email: "loop@example.invalid"}})})
	r.poller = &Poller{Svc: r.svc, Sources: cfg.Polling.Sources}
	return r
}

func (r *prSessionRig) cycle() CycleReport {
	r.t.Helper()
	rep := r.poller.RunOnce(context.Background())
	for _, s := range rep.Sources {
		require.Empty(r.t, s.Error, "source %s", s.Container)
	}
	return rep
}

// itemTree is where issue-1 lives: its working tree.
func (r *prSessionRig) itemTree() string {
	return filepath.Join(r.trees, "octo-widgets", "issue-1")
}

// atImplementation arms issue-1 with execute, moves it to implementation
// and opens its pull requests in octo/widgets and octo/infra; the outer
// claim then waits on their loops, so only the loops want sessions.
func (r *prSessionRig) atImplementation(execute string) {
	r.t.Helper()
	ctx := context.Background()
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	r.fake.AddComment(r.ref, "alice", "OWNER", execute)
	r.cycle()
	item := ItemRequest{Repo: r.itemTree(), WorkItem: "issue-1"}
	_, err := r.svc.Force(ctx, ForceRequest{ItemRequest: item, To: "implementation", Reason: "the test's item stands at implementation", Actor: "@ops"})
	require.NoError(r.t, err)
	_, err = r.svc.GraphRepos(ctx, GraphReposRequest{ItemRequest: item, Repositories: []string{providertest.GitHubRepo, infra}, Actor: "@ops"})
	require.NoError(r.t, err)
	for _, repo := range []string{providertest.GitHubRepo, infra} {
		r.fake.SeedBranch(repo, itemBranch, shaA)
		res, err := r.svc.PRCreate(ctx, PRCreateRequest{ItemRequest: item, Repository: repo, Actor: "agent"})
		require.NoError(r.t, err)
		require.Equal(r.t, itemBranch, res.PullRequest.Head, "the pull request is opened from the item tree's branch")
	}
	writeFile(r.t, filepath.Join(r.itemTree(), "docs", "specs", "issue-1", "tasks.md"), "# Tasks\n\n## Task list\n\n- [x] T1 the change\n")
	res, err := r.svc.Complete(ctx, CompleteRequest{ItemRequest: item, Actor: "agent"})
	require.NoError(r.t, err)
	require.Equal(r.t, string(runtime.Wait), res.Status, "the outer implementation waits on its pull requests' loops: %v", res.Messages)
	// The item's session at implementation ends on its own (its script
	// does nothing); the next cycle records that.
	deadline := time.Now().Add(30 * time.Second)
	for len(r.sup.Live()) > 0 {
		require.True(r.t, time.Now().Before(deadline), "the item's first session never ended")
		select {
		case <-r.sup.Changed():
		case <-time.After(50 * time.Millisecond):
		}
		_, err := r.sup.Cycle(ctx, nil)
		require.NoError(r.t, err)
	}
}

// liveByPR is the live sessions of issue-1 by the pull request they work.
func (r *prSessionRig) liveByPR() map[string]sessions.Status {
	out := map[string]sessions.Status{}
	for _, st := range r.sup.Live() {
		out[st.PRRepo] = st
	}
	return out
}

// Per-PR sessions follow the signed pr-sessions choice. never: the item's
// one session works the pull requests' loops, one at a time. cross-
// repository: the pull request in octo/infra gets its own session in its
// own working tree on its branch; the origin's is worked by the item's
// session. always: the origin's pull request would get one too, but its
// branch is the item's own, checked out in the item's tree, so it gets
// none and the refusal is recorded.
func TestPullRequestSessionsFollowTheSignedChoice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode     string
		infraOwn bool
		declined bool
	}{
		{mode: "never"},
		{mode: "cross-repository", infraOwn: true},
		{mode: "always", infraOwn: true, declined: true},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			r := newPRSessionRig(t)
			r.atImplementation("- [ ] spec-chain\n- [ ] review-chain\n- [x] pr-sessions-" + tc.mode + "\n\nthe-loop execute")
			rep := r.cycle()
			require.NotNil(t, rep.Sessions)
			live := r.liveByPR()
			origin, ok := live[providertest.GitHubRepo]
			require.True(t, ok, "the origin pull request's loop is worked: %+v", rep.Sessions.Report)
			assert.Equal(t, "implementation", origin.Node)
			assert.False(t, origin.Own, "the item's session works the origin's pull request")
			infraSess, ok := live[infra]
			if !tc.infraOwn {
				assert.False(t, ok, "one session per item: octo/infra's loop waits for the item's session")
				assert.Len(t, live, 1)
			} else {
				require.True(t, ok, "octo/infra's pull request has a session of its own")
				assert.True(t, infraSess.Own)
				shown, err := r.svc.SessionShow(context.Background(), SessionRequest{Session: infraSess.Session})
				require.NoError(t, err)
				rec := shown.Session
				assert.Equal(t, infra, rec.PRRepo)
				assert.Equal(t, 1, rec.PR)
				tree := filepath.Join(r.trees, "octo-infra", "octo-widgets.issue-1")
				assert.Equal(t, itemBranch, checkedOutBranch(tree), "its own tree is on the pull request's branch")
				mcpCfg, err := os.ReadFile(filepath.Join(filepath.Dir(rec.Transcript), "mcp.json"))
				require.NoError(t, err)
				var cfg struct {
					MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
				}
				require.NoError(t, json.Unmarshal(mcpCfg, &cfg))
				assert.Contains(t, strings.Join(cfg.MCPServers["the-loop"].Args, " "), "--repo "+r.itemTree()+" --work-item issue-1",
					"its server serves the item where the item lives")
			}
			evs, err := r.svc.Events(context.Background(), ItemRequest{Repo: r.itemTree(), WorkItem: "issue-1"})
			require.NoError(t, err)
			var declined []string
			for _, e := range evs.Events {
				if e.Name == "session.pr_session_declined" {
					declined = append(declined, e.Data["pullRequest"].(string)+": "+e.Data["reason"].(string))
				}
			}
			if tc.declined {
				assert.Equal(t, []string{"octo/widgets#2: its branch " + itemBranch + " is the work item's own, checked out in the item's working tree"}, declined)
			} else {
				assert.Empty(t, declined)
			}
			body := statusComment(t, r)
			if tc.infraOwn {
				assert.Contains(t, body, "- **pull request octo/infra#1:** `implementation` of pdlc-pr-loop — its own session `"+infraSess.Session+"` running")
			} else {
				assert.Contains(t, body, "- **pull request octo/infra#1:** `implementation` of pdlc-pr-loop — waiting for the item's session, which works something else now")
			}
			assert.Contains(t, body, "- **pull request octo/widgets#2:** `implementation` of pdlc-pr-loop — worked by the item's session")
			assert.Contains(t, body, "the session's claim of `implementation` of octo/widgets#2")
		})
	}
}

func statusComment(t *testing.T, r *prSessionRig) string {
	t.Helper()
	for _, c := range r.fake.Comments(r.ref) {
		if strings.Contains(c.Body, statusMarker) {
			return c.Body
		}
	}
	t.Fatal("no status comment")
	return ""
}

// A session's server cannot reach GitHub: its pr_create is an ask the
// poller opens on its next cycle (starting the pull request's loop), and a
// claim on that loop leaves its entry chain to the poller too. An ask the
// loop cannot satisfy is settled with the reason, and links nothing.
func TestThePollerOpensThePullRequestASessionAskedFor(t *testing.T) {
	r := newPRRig(t)
	ctx := context.Background()
	r.arm(skipToImplementation)
	confined := r.confined()
	res, err := confined.PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Actor: "mcp"})
	require.NoError(t, err)
	assert.True(t, res.Asked)
	assert.Equal(t, providertest.GitHubRepo, res.PullRequest.Repo)
	_, err = confined.PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Repository: infra, Actor: "mcp"})
	require.ErrorIs(t, err, ErrInvalidRequest, "a session asks only in the repositories the item declares")
	assert.ErrorContains(t, err, "octo/infra is not a repository issue-1 declares (octo/widgets)")
	_, err = confined.PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Repository: "octo/elsewhere", Actor: "mcp"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	_, err = confined.GraphRepos(ctx, GraphReposRequest{ItemRequest: r.item(), Repositories: []string{providertest.GitHubRepo, infra}, Actor: "mcp", AddOnly: true})
	require.NoError(t, err)
	_, err = confined.PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Repository: infra, Actor: "mcp"})
	require.NoError(t, err, "once declared, it may be asked for")
	_, err = confined.PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Repository: "not a repository", Actor: "mcp"})
	assert.ErrorIs(t, err, ErrInvalidRequest, "a malformed ask is refused at once")
	require.Len(t, r.state().PullAsks, 2)
	assert.Empty(t, r.state().PullRequests, "nothing is opened by the session's server")

	r.fake.SeedBranch(providertest.GitHubRepo, itemBranch, shaA) // octo/infra has no such branch
	r.cycle()
	st := r.state()
	assert.Empty(t, st.PullAsks, "both asks are settled")
	require.Len(t, st.PullRequests, 1, "only the pull request GitHub could open is linked")
	link := st.PullRequests[0]
	assert.Equal(t, "mcp", link.LinkedBy)
	assert.Equal(t, "implementation", r.inner(providertest.GitHubRepo, link.Number).CurrentNode)
	evs, err := r.svc.Events(ctx, r.item())
	require.NoError(t, err)
	var settled []string
	for _, e := range evs.Events {
		switch e.Name {
		case "graph.pull_request_ask_opened":
			settled = append(settled, "opened "+e.Data["repository"].(string))
		case "graph.pull_request_ask_refused":
			settled = append(settled, "refused "+e.Data["repository"].(string))
			assert.Contains(t, e.Data["reason"], "open the pull request of issue-1 in octo/infra")
		}
	}
	assert.ElementsMatch(t, []string{"opened ", "refused octo/infra"}, settled)

	env, err := confined.Complete(ctx, CompleteRequest{ItemRequest: r.item(), PR: link.Number, Actor: "agent"})
	require.NoError(t, err)
	require.Equal(t, string(runtime.Pass), env.Status, "%v", env.Messages)
	assert.Equal(t, "verification", r.inner(providertest.GitHubRepo, link.Number).EntryPending, "the session's server leaves the entry chain")
	r.cycle()
	assert.Empty(t, r.inner(providertest.GitHubRepo, link.Number).EntryPending, "the poller ran it")
}
