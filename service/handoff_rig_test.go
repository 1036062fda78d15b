package service

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
)

// handoffRig is the real core — SQLite store, shipped graph, poller, GitHub
// provider — against the fake GitHub server, over a temporary checkout.
// dev and alice are authorized; the loop posts as the fake's bot login.
type handoffRig struct {
	t      *testing.T
	gh     *providertest.Server
	svc    *Service
	poller *Poller
	repo   string
	ref    integrations.Ref
	id     string
}

func newHandoffRig(t *testing.T) *handoffRig {
	t.Helper()
	gh := providertest.NewGitHub(t)
	cfg := config.Default()
	cfg.Integrations.GitHub.BaseURL = gh.URL()
	cfg.Integrations.GitHub.TokenEnv = "TEST_GH_TOKEN"
	cfg.Routing.AuthorizedUsers = []string{"dev", "alice"}
	cfg.Routing.SelfLogins = []string{gh.BotLogin()}
	vars := map[string]string{"TEST_GH_TOKEN": gh.Token()}
	svc := testService(t, cfg, Deps{Signer: runtime.NewSigner([]byte("handoff-test-key")), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Providers: func(system string) (integrations.Provider, error) {
			return providers.New(cfg, system, func(k string) string { return vars[k] })
		}})
	repo := filepath.Join(t.TempDir(), "checkout")
	require.NoError(t, os.MkdirAll(repo, 0o755))
	ref := gh.SeedIssue("Export CSV", nil, true)
	return &handoffRig{t: t, gh: gh, svc: svc, repo: repo, ref: ref, id: fmt.Sprintf("issue-%d", ref.Number),
		poller: &Poller{Svc: svc, Sources: []config.Source{{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: repo}}}}
}

func (r *handoffRig) ctx() context.Context { return r.t.Context() }

func (r *handoffRig) specDir() string { return filepath.Join(r.repo, "docs", "specs", r.id) }

// pushBranch publishes files on the spec branch of the fake (with a draft
// pull request) and checks them out in the local checkout, then points rec
// at that branch and pull request.
func (r *handoffRig) pushBranch(rec *handoff.Record, files map[string]string) {
	r.t.Helper()
	branch := fmt.Sprintf("the-loop/%s-export-csv", r.id)
	r.gh.SeedBranch(providertest.GitHubRepo, branch, providertest.GitHubMainSHA)
	for name, body := range files {
		r.gh.SeedFile(providertest.GitHubRepo, branch, "docs/specs/"+r.id+"/"+name, body)
	}
	p, err := r.svc.Provider("github")
	require.NoError(r.t, err)
	pr, err := p.CreatePullRequest(r.ctx(), integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Spec", Head: branch, Base: "main", Draft: true})
	require.NoError(r.t, err)
	rec.Branch, rec.PullRequest = branch, pr.Number
	handofftest.WriteFiles(r.t, r.specDir(), files)
}

// post posts rec through the handoff post verb and returns the record's URL.
func (r *handoffRig) post(rec handoff.Record) string {
	r.t.Helper()
	res, err := r.svc.HandoffPost(r.ctx(), HandoffPostRequest{Repo: r.repo, WorkItem: r.ref.String(), Record: rec, By: "dev"})
	require.NoError(r.t, err)
	require.NotEmpty(r.t, res.Comments)
	return res.Comments[0].URL
}

// say posts a comment as a person.
func (r *handoffRig) say(author, body string) providertest.Comment {
	return r.gh.AddComment(r.ref, author, "MEMBER", body)
}

// poll runs one poller cycle and returns what it did for the rig's item.
func (r *handoffRig) poll() ItemAction {
	r.t.Helper()
	rep := r.poller.RunOnce(r.ctx())
	for _, src := range rep.Sources {
		require.Empty(r.t, src.Error)
		for _, it := range src.Items {
			if it.WorkItem == r.id {
				return it
			}
		}
	}
	r.t.Fatalf("the poller did not see %s", r.id)
	return ItemAction{}
}

func (r *handoffRig) state() *runtime.State {
	r.t.Helper()
	sess, err := r.svc.open(r.ctx(), r.repo, r.id, "")
	require.NoError(r.t, err)
	return sess.state
}

func (r *handoffRig) complete() runtime.ClaimAnswer {
	r.t.Helper()
	env, err := r.svc.Complete(r.ctx(), CompleteRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}, Actor: "agent"})
	require.NoError(r.t, err)
	return env.ClaimAnswer
}

func (r *handoffRig) events(name string) []runtime.EventRecord {
	r.t.Helper()
	evlog, err := r.svc.Events(r.ctx(), ItemRequest{Repo: r.repo, WorkItem: r.id})
	evs := evlog.Events
	require.NoError(r.t, err)
	var out []runtime.EventRecord
	for _, e := range evs {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// lastOwn returns the newest comment the loop posted that contains marker.
func (r *handoffRig) lastOwn(marker string) providertest.Comment {
	r.t.Helper()
	cs := r.gh.Comments(r.ref)
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Author == r.gh.BotLogin() && strings.Contains(cs[i].Body, marker) {
			return cs[i]
		}
	}
	r.t.Fatalf("the loop posted no comment containing %q", marker)
	return providertest.Comment{}
}

// armAndSelect arms the item with an authorized start and answers the
// checklist with an authorized execute, returning the two poll actions.
func (r *handoffRig) armAndSelect() (ItemAction, ItemAction) {
	r.t.Helper()
	r.say("dev", "the-loop start")
	armed := r.poll()
	r.say("alice", "the-loop execute")
	return armed, r.poll()
}
