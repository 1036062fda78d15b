package service

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// dagRig is a project on the fake GitHub (octo/widgets) and the fake Jira
// (PROJ), both watched by a real poller over one checkout, with alice
// authorized and the loop posting as the-loop-bot.
type dagRig struct {
	t        testing.TB
	gh, jira *providertest.Server
	ghp      *github.Provider
	svc      *Service
	poller   *Poller
	repo     string
	host     string
}

func newDAGRig(t testing.TB) *dagRig {
	t.Helper()
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, filepath.Dir(repoconfig.Path)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, repoconfig.Path), []byte("ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"), 0o644))
	return newDAGRigIn(t, repo)
}

// newDAGRigIn is the rig over the checkout repo, with the service's deps
// changed by with.
func newDAGRigIn(t testing.TB, repo string, with ...func(*Deps)) *dagRig {
	t.Helper()
	r := &dagRig{t: t, gh: providertest.NewGitHub(t), jira: providertest.NewJira(t, jira.AuthDataCenter), repo: repo}
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"alice"}
	cfg.Routing.SelfLogins = []string{r.gh.BotLogin(), r.jira.BotLogin()}
	cfg.Polling.Sources = []config.Source{
		{System: "github", Repos: []string{"octo/widgets"}, Checkout: r.repo},
		{System: "jira", Projects: []string{"PROJ"}, Checkout: r.repo},
	}
	var err error
	r.ghp, err = github.New(github.Options{BaseURL: r.gh.URL(), Token: r.gh.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(t, err)
	jp, err := jira.New(jira.Options{
		BaseURL:       r.jira.URL(),
		Auth:          jira.AuthDataCenter,
		Token:         r.jira.Token(),
		Projects:      r.jira.Projects(),
		ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}},
	})
	require.NoError(t, err)
	u, err := url.Parse(r.gh.URL())
	require.NoError(t, err)
	r.host = u.Host
	providers := func(system string) (integrations.Provider, error) {
		if system == "jira" {
			return jp, nil
		}
		return r.ghp, nil
	}
	deps := Deps{Signer: runtime.NewSigner([]byte("test-key")), Providers: providers}
	for _, w := range with {
		w(&deps)
	}
	r.svc = testService(t, cfg, deps)
	r.poller = &Poller{Svc: r.svc, Sources: cfg.Polling.Sources}
	return r
}

// issue seeds an open issue of octo/widgets.
func (r *dagRig) issue(title string) integrations.Ref { return r.gh.SeedIssue(title, nil, true) }

// cycle runs one poll cycle and returns each item's action by work item.
func (r *dagRig) cycle() map[string]ItemAction {
	r.t.Helper()
	rep := r.poller.RunOnce(context.Background())
	out := map[string]ItemAction{}
	for _, s := range rep.Sources {
		require.Empty(r.t, s.Error, "%s %s", s.System, s.Container)
		for _, it := range s.Items {
			out[it.WorkItem] = it
		}
	}
	return out
}

// cycles runs n cycles and returns the last one's actions.
func (r *dagRig) cycles(n int) map[string]ItemAction {
	r.t.Helper()
	var last map[string]ItemAction
	for range n {
		last = r.cycle()
	}
	return last
}

// say posts body on ref as author (an authorized one when alice).
func (r *dagRig) say(ref integrations.Ref, author, body string) {
	fake := r.gh
	if ref.System == "jira" {
		fake = r.jira
	}
	association := "NONE"
	if author == "alice" {
		association = "OWNER"
	}
	fake.AddComment(ref, author, association, body)
}

// state is the stored state of work item id.
func (r *dagRig) state(id string) *runtime.State {
	r.t.Helper()
	sess, err := r.svc.open(context.Background(), r.repo, id, "")
	require.NoError(r.t, err)
	return sess.state
}

// at is where work item id stands ("" when never armed).
func (r *dagRig) at(id string) string { return r.state(id).CurrentNode }

// check is check's report of work item id (recompute or not).
func (r *dagRig) check(id string, recompute bool) (runtime.Report, *runtime.Graph) {
	r.t.Helper()
	res, err := r.svc.Check(context.Background(), CheckRequest{Repo: r.repo, WorkItem: id, Recompute: recompute})
	require.NoError(r.t, err)
	return res.Reports[0], res.Graphs[id]
}

// phaseSelection is the phase-selection node report of rep.
func phaseSelectionOf(rep runtime.Report) runtime.NodeReport {
	for _, nr := range rep.Nodes {
		if nr.Node == phaseSelection {
			return nr
		}
	}
	return runtime.NodeReport{}
}

// done closes ref as completed on its tracker.
func (r *dagRig) done(ref integrations.Ref) {
	if ref.System == "jira" {
		r.jira.SetState(ref, false, "Done")
		return
	}
	r.gh.SetState(ref, false, "completed")
}

// canon is ref as the loop writes it (qualified with the fake's host).
func (r *dagRig) canon(ref integrations.Ref) integrations.Ref {
	if ref.System == "github" && ref.Host == "" {
		ref.Host = r.host
	}
	return ref
}
