package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/service"
)

// handoffCLI runs the binary's Main against the fake GitHub server with a
// config that polls octo/widgets into a temporary checkout.
type handoffCLI struct {
	t        *testing.T
	gh       *providertest.Server
	config   string
	db       string
	checkout string
	cwd      string
	ref      integrations.Ref
	id       string
}

func newHandoffCLI(t *testing.T) *handoffCLI {
	t.Helper()
	gh := providertest.NewGitHub(t)
	f := &handoffCLI{t: t, gh: gh, db: filepath.Join(t.TempDir(), "state.db"), checkout: filepath.Join(t.TempDir(), "checkout"), cwd: t.TempDir()}
	require.NoError(t, os.MkdirAll(f.checkout, 0o755))
	f.ref = gh.SeedIssue("Export CSV", nil, true)
	f.id = fmt.Sprintf("issue-%d", f.ref.Number)
	f.config = filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf(`integrations:
  github:
    baseUrl: %s
    tokenEnv: TEST_GH_TOKEN
routing:
  authorizedUsers: [dev, alice]
  selfLogins: [%s]
  operator: dev
polling:
  sources:
    - {system: github, repos: [%s], checkout: %s}
`, gh.URL(), gh.BotLogin(), providertest.GitHubRepo, f.checkout)
	require.NoError(t, os.WriteFile(f.config, []byte(cfg), 0o600))
	return f
}

func (f *handoffCLI) run(args ...string) (int, string, string) {
	f.t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Cwd: f.cwd,
		Getenv: func(k string) string {
			if k == "TEST_GH_TOKEN" {
				return f.gh.Token()
			}
			return ""
		}}
	code := Main(context.Background(), env, append(args, "--config", f.config))
	return code, out.String(), errOut.String()
}

func (f *handoffCLI) writeRecord(rec handoff.Record) string {
	f.t.Helper()
	data, err := handoff.EncodeJSON(rec)
	require.NoError(f.t, err)
	p := filepath.Join(f.cwd, "rec.json")
	require.NoError(f.t, os.WriteFile(p, data, 0o644))
	return p
}

// TestHandoffCLIEndToEnd posts a branch-carried record with `handoff post`,
// arms the item with `poll --once`, answers the checklist, imports and notes
// the files, and claims import-handoff: the walk lands on the entry node.
func TestHandoffCLIEndToEnd(t *testing.T) {
	f := newHandoffCLI(t)
	rec := f.specBranch(handoff.StageRequirementsSettled)

	code, out, stderr := f.run("handoff", "post", "--work-item", f.ref.String(), "--record", f.writeRecord(rec), "--repo", f.checkout, "--format", "json")
	require.Equal(t, 0, code, stderr)
	var posted struct {
		Comments []struct{ URL string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &posted))
	require.Len(t, posted.Comments, 1)
	recordURL := posted.Comments[0].URL

	f.gh.AddComment(f.ref, "dev", "MEMBER", "the-loop start")
	code, _, stderr = f.run("poll", "--once", "--db", f.db)
	require.Equal(t, 0, code, stderr)

	code, out, stderr = f.run("handoff", "show", f.id, "--repo", f.checkout, "--db", f.db)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, f.id+": handed off by @dev at requirements-settled, enter requirements-approval, carried by branch")
	assert.Contains(t, out, "record: "+recordURL)

	f.gh.AddComment(f.ref, "alice", "MEMBER", "the-loop execute")
	code, _, stderr = f.run("poll", "--once", "--db", f.db)
	require.Equal(t, 0, code, stderr)

	code, out, stderr = f.run("handoff", "import", f.id, "--repo", f.checkout, "--db", f.db)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "verified  brainstorm.md")
	assert.Contains(t, out, "verified  requirements.md")

	code, out, stderr = f.run("handoff", "note", f.id, "--branch", rec.Branch, "--pull-request", fmt.Sprint(rec.PullRequest), "--repo", f.checkout, "--db", f.db)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, f.id+": edited "+recordURL+"\n", out)

	code, out, stderr = f.run("graph", "complete", f.id, "--repo", f.checkout, "--db", f.db)
	require.Equal(t, 0, code, stderr)
	var env struct{ CurrentNode string }
	require.NoError(t, json.Unmarshal([]byte(out), &env))
	assert.Equal(t, "requirements-approval", env.CurrentNode)

	code, out, stderr = f.run("handoff", "show", f.id, "--repo", f.checkout, "--db", f.db, "--format", "json")
	require.Equal(t, 0, code, stderr)
	var view map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &view))
	assert.Equal(t, "requirements-approval", view["currentNode"])
	assert.Equal(t, []any{}, view["handoffDemoted"])
}

// specBranch builds a record carried by a spec branch at stage: the files
// are on the branch of the fake, with a draft pull request, and checked out
// in the checkout.
func (f *handoffCLI) specBranch(stage string) handoff.Record {
	f.t.Helper()
	rec, files := handofftest.Build(handofftest.Spec{Stage: stage})
	rec.Branch = "the-loop/" + f.id + "-export-csv"
	f.gh.SeedBranch(providertest.GitHubRepo, rec.Branch, providertest.GitHubMainSHA)
	for name, body := range files {
		f.gh.SeedFile(providertest.GitHubRepo, rec.Branch, "docs/specs/"+f.id+"/"+name, body)
	}
	rec.PullRequest = newGitHubPR(f, rec.Branch)
	handofftest.WriteFiles(f.t, filepath.Join(f.checkout, "docs", "specs", f.id), files)
	return rec
}

// newGitHubPR opens a draft pull request from branch on the fake.
func newGitHubPR(f *handoffCLI, branch string) int {
	f.t.Helper()
	cfg, err := config.Load(f.config, true)
	require.NoError(f.t, err)
	p, err := providers.New(cfg, "github", func(string) string { return f.gh.Token() })
	require.NoError(f.t, err)
	pr, err := p.CreatePullRequest(context.Background(), integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Spec", Head: branch, Base: "main", Draft: true})
	require.NoError(f.t, err)
	return pr.Number
}

func TestHandoffCLIUsageAndRefusals(t *testing.T) {
	f := newHandoffCLI(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no action", []string{"handoff"}, 2, "handoff needs an action: import, note, parse, post, render, show"},
		{"unknown action", []string{"handoff", "publish"}, 2, `unknown handoff action "publish"`},
		{"post without a ticket", []string{"handoff", "post", "--record", "x.json"}, 2, "--work-item REF"},
		{"post without a record", []string{"handoff", "post", "--work-item", "octo/widgets#2"}, 2, "--record FILE.json"},
		{"note without a branch", []string{"handoff", "note", "issue-2", "--db", f.db}, 2, "--branch"},
		{"note without a pull request", []string{"handoff", "note", "issue-2", "--branch", "the-loop/x", "--db", f.db}, 2, "--pull-request N"},
		{"show without a handoff", []string{"handoff", "show", "issue-2", "--repo", f.checkout, "--db", f.db}, 1, "issue-2 carries no handoff"},
		{"import without a handoff", []string{"handoff", "import", "issue-2", "--repo", f.checkout, "--db", f.db}, 1, "no handoff is frozen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := f.run(tt.args...)
			if len(tt.args) == 1 {
				var out, errOut bytes.Buffer
				code = Main(context.Background(), &Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}, tt.args)
				stderr = errOut.String()
			}
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

func TestHandoffCLIPostRefusesARecordPointingNowhere(t *testing.T) {
	f := newHandoffCLI(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled})
	code, _, stderr := f.run("handoff", "post", "--work-item", f.ref.String(), "--record", f.writeRecord(rec), "--repo", f.checkout)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "handoff record not posted")
	assert.Contains(t, stderr, "push the spec branch before posting the record")
	assert.Empty(t, f.gh.Comments(f.ref), "nothing is posted")
	assert.NotContains(t, stderr, f.gh.Token())
}

func TestHandoffCLIPostTicketCarriedRecordWithFiles(t *testing.T) {
	f := newHandoffCLI(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByTicket})
	dir := filepath.Join(f.cwd, "files")
	handofftest.WriteFiles(t, dir, files)
	recPath := f.writeRecord(rec)
	code, _, stderr := f.run("handoff", "post", "--work-item", f.ref.String(), "--record", recPath)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "pass --files DIR")

	code, out, stderr := f.run("handoff", "post", "--work-item", f.ref.String(), "--record", recPath, "--files", "files")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "record\tposted\t"), out)
	stored := f.gh.Comments(f.ref)
	require.Len(t, stored, 1)
	parsed, err := handoff.Parse(stored[0].Body)
	require.NoError(t, err)
	assert.Equal(t, files, parsed.Files)
	assert.True(t, integrations.IsSelfAuthored(stored[0].Body))

	code, out, _ = f.run("handoff", "post", "--work-item", f.ref.String(), "--record", recPath, "--files", "files")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "record\talready there\t"), out)
}

// Fault 5: a second poller on the same store exits at once, naming the
// holder.
func TestPollRefusesWhileAnotherPollerHoldsTheStore(t *testing.T) {
	f := newHandoffCLI(t)
	lock, err := service.LockPoller(f.db)
	require.NoError(t, err)
	defer lock.Release()
	code, _, stderr := f.run("poll", "--once", "--db", f.db)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, fmt.Sprintf("poll: another poller (pid %d, since ", os.Getpid()))
	assert.Contains(t, stderr, "holds the lock")
	require.NoError(t, lock.Release())
	code, _, stderr = f.run("poll", "--once", "--db", f.db)
	assert.Equal(t, 0, code, stderr)
}

// Fault 11 (temp files): the poller removes what a killed write left in
// the spec folders before it polls.
func TestPollRemovesOrphanedTempFilesAtStartUp(t *testing.T) {
	f := newHandoffCLI(t)
	orphan := filepath.Join(f.checkout, "docs", "specs", f.id, ".work-item-state.json.tmp-3141592653")
	require.NoError(t, os.MkdirAll(filepath.Dir(orphan), 0o755))
	require.NoError(t, os.WriteFile(orphan, []byte("{"), 0o644))
	old := time.Now().Add(-2 * service.TempGrace)
	require.NoError(t, os.Chtimes(orphan, old, old))
	code, _, stderr := f.run("poll", "--once", "--db", f.db)
	require.Equal(t, 0, code, stderr)
	assert.NoFileExists(t, orphan)
}
