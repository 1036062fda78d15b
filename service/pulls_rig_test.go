package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// prRig is a checkout of octo/widgets polled against the fake GitHub, with
// octo/infra as a second repository nobody tracks issues in: issue #1
// ("Seeded ticket") is the work item issue-1, alice and bob are
// authorized, and the loop posts as the fake's bot.
type prRig struct {
	t      *testing.T
	fake   *providertest.Server
	svc    *Service
	poller *Poller
	repo   string
	db     string
	cfg    *config.Config
	ref    integrations.Ref
	mu     sync.Mutex
	now    time.Time
}

// passingTests declares the repository's test command, which passes: the
// pull requests' implementation and verification run it.
const passingTests = "commands:\n  test: [sh, -c, 'exit 0']\n"

const (
	infra      = "octo/infra"
	itemBranch = "the-loop/issue-1-seeded-ticket"
)

func newPRRig(t *testing.T) *prRig {
	t.Helper()
	fake := providertest.NewGitHub(t)
	fake.SetQuota(1<<30, time.Hour)
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, repoconfig.Path), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"+passingTests)
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"alice", "bob"}
	cfg.Routing.SelfLogins = []string{fake.BotLogin()}
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: repo}}
	withFakeCritic(t, cfg)
	prov, err := github.New(github.Options{BaseURL: fake.URL(), Token: fake.Token()})
	require.NoError(t, err)
	r := &prRig{t: t, fake: fake, repo: repo, now: time.Now(), ref: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1},
		db: filepath.Join(t.TempDir(), "state.db"), cfg: cfg}
	r.svc = testService(t, cfg, Deps{Signer: runtime.NewSigner([]byte("test-key")), Store: store.NewHandle(r.db),
		Providers: func(string) (integrations.Provider, error) { return prov, nil }, Clock: r.clock})
	r.poller = &Poller{Svc: r.svc, Sources: cfg.Polling.Sources}
	fake.SeedRepo(infra, strings.Repeat("e", 40))
	return r
}

// confined is the core of a launched session's server over the rig's
// store: no integration, entry chains left to the poller.
func (r *prRig) confined() *Service {
	return testService(r.t, r.cfg, Deps{Signer: runtime.NewSigner([]byte("test-key")), Store: store.NewHandle(r.db), DeferEntry: true, Clock: r.clock})
}

func (r *prRig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

// later moves the poller's clock on.
func (r *prRig) later(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = r.now.Add(d)
}

func (r *prRig) cycle() CycleReport {
	r.t.Helper()
	rep := r.poller.RunOnce(context.Background())
	for _, s := range rep.Sources {
		require.Empty(r.t, s.Error, "source %s", s.Container)
	}
	return rep
}

func (r *prRig) item() ItemRequest { return ItemRequest{Repo: r.repo, WorkItem: "issue-1"} }

func (r *prRig) state() *runtime.State {
	r.t.Helper()
	sess, err := r.svc.open(context.Background(), r.repo, "issue-1", "")
	require.NoError(r.t, err)
	return sess.state
}

// inner is the state of the loop of pull request repo#n.
func (r *prRig) inner(repo string, n int) *runtime.State {
	r.t.Helper()
	link := runtime.FindPull(r.state(), repo, n)
	require.NotNil(r.t, link, "%s#%d is linked", repo, n)
	sess, err := r.svc.openInner(context.Background(), r.repo, "issue-1", *link)
	require.NoError(r.t, err)
	return sess.state
}

func (r *prRig) write(name, text string) {
	r.t.Helper()
	writeFile(r.t, filepath.Join(r.repo, "docs", "specs", "issue-1", filepath.FromSlash(name)), text)
}

func (r *prRig) exists(name string) bool {
	_, err := os.Stat(filepath.Join(r.repo, "docs", "specs", "issue-1", filepath.FromSlash(name)))
	return err == nil
}

// arm starts issue-1 and answers its phase selection with execute.
func (r *prRig) arm(execute string) {
	r.t.Helper()
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	r.fake.AddComment(r.ref, "alice", "OWNER", execute)
	r.cycle()
}

// openPR pushes the item's branch in repo at sha and opens its pull
// request through the core, as an agent's pr_create does.
func (r *prRig) openPR(repo, sha string) PRCreateResult {
	r.t.Helper()
	r.fake.SeedBranch(repo, itemBranch, sha)
	res, err := r.svc.PRCreate(context.Background(), PRCreateRequest{ItemRequest: r.item(), Repository: repo, Actor: "mcp"})
	require.NoError(r.t, err)
	return res
}

func (r *prRig) claim(node string, pr int, prRepo string) runtime.ClaimAnswer {
	r.t.Helper()
	res, err := r.svc.Complete(context.Background(), CompleteRequest{ItemRequest: r.item(), Node: node, PR: pr, PRRepo: prRepo, Actor: "agent"})
	require.NoError(r.t, err)
	return res.ClaimAnswer
}

// briefings are the reviewer briefing comments on pull request repo#n.
func (r *prRig) briefings(repo string, n int) []providertest.Comment {
	owner, name, _ := strings.Cut(repo, "/")
	return filterMarker(r.fake.Comments(integrations.Ref{System: "github", Owner: owner, Repo: name, Number: n}), "<!-- the-loop:pr-briefing -->")
}

const rigExecutionLog = "# Execution log\n\n## Review cycles\n\n- cycle 1 (self): no finding.\n\n## Security review (gate)\n\nNo new trust boundary.\n\n" +
	"## Final validation evidence\n\ngo test ./... passes.\n\n## Pull requests\n\n- octo/widgets: the change.\n"

const rigBriefing = "## Summary\n\nThe change.\n\n## Where to focus\n\nservice/poll_pulls.go.\n\n" +
	"## What changed\n\n```mermaid\nflowchart LR\n  poller --> github\n```\n\n## Decisions and why\n\nOne listing per repository.\n\n" +
	"## How it was verified\n\ngo test ./service\n"

const rigDocs = "# Documentation\n\n## Capability docs\n\nnone affected: internal.\n\n## Documentation\n\nnone: internal.\n"

// rigSelfReview is a self-review that stopped on a round with no new
// finding.
const rigSelfReview = "# Self-review\n\n| Round | Findings | New findings |\n|---|---|---|\n| 1 | 0 | 0 |\n"

// withFakeCritic configures the fake critic as codex: a pull request's
// critic-review counts a round the loop recorded from it.
func withFakeCritic(tb testing.TB, cfg *config.Config) {
	tb.Helper()
	cfg.Critic.Critics = []critic.Critic{{Name: "codex", Command: []string{
		testbin.Build(tb, "github.com/the-loop/the-loop/agents/critic/fakecritic"), "--prompt-file", "{prompt_file}"}}}
	cfg.Critic.ApplyDefaults()
}

// criticRound runs one round of the fake critic recorded on the loop of
// pull request n (repo prRepo, "" the origin) of item, standing at its
// critic-review, and writes the round table naming it: the round found
// nothing new, so the review may stop.
func criticRound(tb testing.TB, svc *Service, item ItemRequest, n int, prRepo string) {
	tb.Helper()
	prompt := filepath.Join(item.Repo, "docs", "specs", item.WorkItem, "review-assignment.md")
	require.NoError(tb, writeFileTB(prompt, "Review the change.\n"))
	res, err := svc.CriticRun(context.Background(), CriticRunRequest{Repo: item.Repo, WorkItem: item.WorkItem, Critic: "codex", PromptFile: prompt, PR: n, PRRepo: prRepo})
	require.NoError(tb, err)
	require.True(tb, res.Counts(), res.Unavailable)
	require.Equal(tb, "critic-review", res.Node, "the round is recorded on the pull request's loop")
	require.NoError(tb, writeFileTB(filepath.Join(item.Repo, "docs", "specs", item.WorkItem, filepath.FromSlash(loopFolder(tb, n, prRepo)), "evidence", "critic-review.md"),
		"# Critic review\n\n| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n| 1 | codex | "+res.RunID+" | 0 | 0 |\n"))
}

// loopFolder is the folder of pull request n's loop (prRepo "" = the
// origin repository) under the item's spec folder.
func loopFolder(tb testing.TB, n int, prRepo string) string {
	tb.Helper()
	repo := prRepo
	if repo == "" {
		repo = providertest.GitHubRepo
	}
	dir, err := runtime.InnerLoopDir(providertest.GitHubRepo, repo, n)
	require.NoError(tb, err)
	return dir
}

// writeReviewArtifacts writes what ready-to-ship reads from the item's
// spec folder.
func (r *prRig) writeReviewArtifacts() {
	r.write("pr-briefing.md", rigBriefing)
	r.write("evidence/documentation.md", rigDocs)
}

// writeLoopRecords writes what the review nodes of pull request n's loop
// read from that loop's own folder.
func (r *prRig) writeLoopRecords(n int, prRepo string) {
	dir := loopFolder(r.t, n, prRepo)
	r.write(dir+"/evidence/self-review.md", rigSelfReview)
	r.write(dir+"/execution-log.md", rigExecutionLog)
}

// innerPrompt is the prompt a session working the origin's pull request
// n's loop where it stands would get.
func (r *prRig) innerPrompt(n int) string {
	r.t.Helper()
	ctx := context.Background()
	outer, err := r.svc.open(ctx, r.repo, "issue-1", "")
	require.NoError(r.t, err)
	link := runtime.FindPull(outer.state, providertest.GitHubRepo, n)
	require.NotNil(r.t, link)
	in, err := r.svc.openInner(ctx, r.repo, "issue-1", *link)
	require.NoError(r.t, err)
	node, ok := in.rt.Graph.Node(in.state.CurrentNode)
	require.True(r.t, ok)
	p, err := r.svc.innerPrompt(ctx, outer, innerLoop{link: *link, sess: in}, node, "issue-1", r.repo, false)
	require.NoError(r.t, err)
	return p
}

// walkInnerTo claims the loop of repo#n from implementation up to
// reviewer-briefing.
func (r *prRig) walkInnerTo(repo string, n int) {
	r.t.Helper()
	prRepo := ""
	if repo != providertest.GitHubRepo {
		prRepo = repo
	}
	r.writeLoopRecords(n, prRepo)
	for _, node := range []string{"implementation", "verification", "self-review", "critic-review", "security-review"} {
		if node == "critic-review" {
			criticRound(r.t, r.svc, r.item(), n, prRepo)
		}
		env := r.claim(node, n, prRepo)
		require.Equal(r.t, string(runtime.Pass), env.Status, "%s: %v", node, env.Messages)
	}
}
