package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

type pollRig struct {
	t      *testing.T
	fake   *providertest.Server
	svc    *Service
	poller *Poller
	repo   string
	ref    integrations.Ref
}

func newPollRig(t *testing.T, authorized ...string) *pollRig {
	t.Helper()
	fake := providertest.NewGitHub(t)
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, repoconfig.Path), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n")
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = authorized
	src := config.Source{System: "github", Repos: []string{"octo/widgets"}, Checkout: repo}
	cfg.Polling.Sources = []config.Source{src}
	prov, err := github.New(github.Options{BaseURL: fake.URL(), Token: fake.Token()})
	require.NoError(t, err)
	svc := testService(t, cfg, Deps{Signer: runtime.NewSigner([]byte("test-key")),
		Providers: func(string) (integrations.Provider, error) { return prov, nil }})
	return &pollRig{t: t, fake: fake, svc: svc, repo: repo, ref: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1},
		poller: &Poller{Svc: svc, Sources: cfg.Polling.Sources, StatusPath: filepath.Join(t.TempDir(), "poll-status.json")}}
}

func (r *pollRig) cycle() ItemAction {
	rep := r.poller.RunOnce(context.Background())
	require.Len(r.t, rep.Sources, 1)
	require.Empty(r.t, rep.Sources[0].Error)
	for _, it := range rep.Sources[0].Items {
		if it.WorkItem == "issue-1" {
			return it
		}
	}
	r.t.Fatalf("issue-1 not in the cycle report: %+v", rep.Sources[0].Items)
	return ItemAction{}
}

func (r *pollRig) state() *runtime.State {
	sess, err := r.svc.open(context.Background(), r.repo, "issue-1", "")
	require.NoError(r.t, err)
	return sess.state
}

func TestPollerArmsFromAnAuthorizedStartAndPostsTheChecklist(t *testing.T) {
	r := newPollRig(t, "alice")
	assert.Equal(t, "none", r.cycle().Action, "nothing armed yet")
	r.fake.AddComment(r.ref, "alice", "OWNER", "Please pick this up.\n\nthe-loop start")
	act := r.cycle()
	assert.Equal(t, "started", act.Action)
	assert.Equal(t, "phase-selection", act.Node)
	assert.Equal(t, "wait", act.Status, "the fresh gate is evaluated once and waits")
	var checklist bool
	for _, c := range r.fake.Comments(r.ref) {
		if strings.Contains(c.Body, "<!-- the-loop:phase-selection -->") {
			checklist = true
			assert.True(t, integrations.IsSelfAuthored(c.Body))
		}
	}
	assert.True(t, checklist, "the checklist comment is posted on entry")
	is, _ := r.fake.Issue(r.ref)
	assert.Contains(t, is.Labels, "loop:phase-selection")
	assert.Equal(t, "gate", r.cycle().Action, "a second cycle does not start it again")
	assert.Len(t, filterMarker(r.fake.Comments(r.ref), "<!-- the-loop:phase-selection -->"), 1, "the checklist is posted once")
}

func filterMarker(cs []providertest.Comment, marker string) []providertest.Comment {
	var out []providertest.Comment
	for _, c := range cs {
		if strings.Contains(c.Body, marker) {
			out = append(out, c)
		}
	}
	return out
}

func TestPollerIgnoresUnauthorizedAndSelfAuthoredCommands(t *testing.T) {
	r := newPollRig(t, "alice")
	r.fake.AddComment(r.ref, "mallory", "NONE", "the-loop start")
	r.fake.AddComment(r.ref, "alice", "OWNER", integrations.MarkSelfAuthored("the-loop start"))
	assert.Equal(t, "none", r.cycle().Action, "neither an unauthorized nor a self-authored comment arms")

	empty := newPollRig(t)
	empty.fake.AddComment(empty.ref, "alice", "OWNER", "the-loop start")
	assert.Equal(t, "none", empty.cycle().Action, "an empty authorized list reads nothing")
}

func TestPollerRunsThePhaseSelectionGate(t *testing.T) {
	r := newPollRig(t, "alice")
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	r.fake.AddComment(r.ref, "mallory", "NONE", "the-loop execute")
	act := r.cycle()
	assert.Equal(t, "wait", act.Status, "an unauthorized execute is not read")

	r.fake.AddComment(r.ref, "alice", "OWNER", "- [ ] brainstorming\n- [x] requirements-definition\n\nthe-loop execute")
	act = r.cycle()
	assert.Equal(t, "pass", act.Status)
	st := r.state()
	assert.Equal(t, "requirements-definition", st.CurrentNode)
	d := st.Decisions["phase-selection"]
	require.NotNil(t, d)
	assert.Equal(t, "@alice", d.By)
	assert.Equal(t, runtime.Verified, r.svc.deps.Signer.Verify(d), "the recorded selection is signed")
	require.Contains(t, st.Skips, "brainstorming")
	assert.Equal(t, runtime.ViaSelection, st.Skips["brainstorming"].Via)
	assert.Equal(t, "idle", r.cycle().Action, "the poller never advances an agent's node")
}

func TestPollerReportsAFailingSourceAndKeepsGoing(t *testing.T) {
	r := newPollRig(t, "alice")
	r.poller.Sources = append(r.poller.Sources, config.Source{System: "github", Repos: []string{"octo/widgets"}})
	rep := r.poller.RunOnce(context.Background())
	require.Len(t, rep.Sources, 2)
	assert.Empty(t, rep.Sources[0].Error)
	assert.Contains(t, rep.Sources[1].Error, "names no checkout")
}

// A force is recorded four times: signed in state, in the event log, in the
// portable record, and as a marked ticket comment.
func TestForceLeavesFourAuditRecords(t *testing.T) {
	r := newPollRig(t, "alice")
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	ctx := context.Background()
	res, err := r.svc.Force(ctx, ForceRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}, To: "design", Reason: "spec agreed offline", Actor: "@ops"})
	require.NoError(t, err)
	assert.Equal(t, "phase-selection", res.FromNode)

	st := r.state()
	require.Len(t, st.Forced, 1)
	assert.Equal(t, runtime.Verified, r.svc.deps.Signer.Verify(st.Forced[0]))
	evlog, err := r.svc.Events(ctx, ItemRequest{Repo: r.repo, WorkItem: "issue-1"})
	evs := evlog.Events
	require.NoError(t, err)
	var forcedEvent bool
	for _, e := range evs {
		forcedEvent = forcedEvent || e.Name == "graph.forced"
	}
	assert.True(t, forcedEvent)
	portable, _, err := readPortable(filepath.Join(r.repo, "docs/specs/issue-1"), "issue-1")
	require.NoError(t, err)
	require.Len(t, portable.Forced, 1)
	assert.Equal(t, "spec agreed offline", portable.Forced[0].Reason)
	audit := filterMarker(r.fake.Comments(r.ref), "forced transition")
	require.Len(t, audit, 1)
	assert.True(t, integrations.IsSelfAuthored(audit[0].Body))
	assert.Contains(t, audit[0].Body, "spec agreed offline")

	rep, err := r.svc.Check(ctx, CheckRequest{Repo: r.repo, WorkItem: "issue-1", Recompute: true})
	require.NoError(t, err)
	assert.Equal(t, "phase-selection", rep.Reports[0].CurrentNode, "the bypassed gate keeps its real verdict")
}

func TestPollerNeverReadsAHandoffRecordAsACommand(t *testing.T) {
	r := newPollRig(t, "alice")
	r.fake.AddComment(r.ref, "alice", "OWNER", "<!-- the-loop:handoff -->\nnotes from chat: we said `the-loop start` later\n")
	assert.Equal(t, "none", r.cycle().Action)
	assert.True(t, isHandoffComment("\n<!-- the-loop:handoff-part record=0123456789abcdef index=1 -->\nthe-loop stop"))
	assert.False(t, isHandoffComment("the-loop start"))
}

func TestThePollerRereadsOnlyAParkedSignOff(t *testing.T) {
	g, err := Graph("")
	require.NoError(t, err)
	sec, _ := g.Node("security-review")
	design, _ := g.Node("design")
	parked := &runtime.State{Parked: &runtime.Parked{Node: "security-review"}}
	assert.True(t, awaitsSignOff(sec, parked))
	assert.False(t, awaitsSignOff(sec, &runtime.State{}), "an agent still working is never evaluated by the poller")
	assert.False(t, awaitsSignOff(design, &runtime.State{Parked: &runtime.Parked{Node: "design"}}), "only nodes that read a sign-off")
}
