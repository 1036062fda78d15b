package service

// The design's seven abuse cases, closed on the runtime side: at arming, at
// the start guard, at import and in the import-handoff hook. (Cases 1, 2, 4
// and 5 are also closed at the record level: handoff/abuse_test.go.)

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
)

func render(t *testing.T, rec handoff.Record) []string {
	t.Helper()
	bodies, err := handoff.Render(rec)
	require.NoError(t, err)
	return bodies
}

// assertNoHandoff checks the item armed as one without a handoff.
func assertNoHandoff(t *testing.T, r *handoffRig) {
	t.Helper()
	st := r.state()
	assert.Equal(t, "phase-selection", st.CurrentNode)
	assert.Nil(t, st.Handoff, "nothing is frozen")
	list := r.lastOwn(checklist.Marker)
	assert.NotContains(t, list.Body, "Handed off")
	assert.Contains(t, list.Body, "- [x] brainstorming\n", "the default checklist")
	assert.Empty(t, r.events(EventHandoffHonoured))
}

// Abuse case 1 — a record by a login that is not authorized is ignored,
// with handoff.ignored naming why, and the item gets the default checklist.
// A self-marker typed by such a login earns nothing either.
func TestAbuseCase1UnauthorizedRecordIsIgnoredAtArming(t *testing.T) {
	r := newHandoffRig(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	body := render(t, rec)[0]
	r.say("mallory", body)
	r.say("mallory", integrations.MarkSelfAuthored(body))
	r.say("dev", "the-loop start")
	act := r.poll()
	require.Equal(t, "started", act.Action, act.Detail)
	assertNoHandoff(t, r)
	ignored := r.events(EventHandoffIgnored)
	require.Len(t, ignored, 2)
	for _, e := range ignored {
		assert.Equal(t, string(handoff.CodeUnauthorized), e.Data["code"])
		assert.Equal(t, "mallory", e.Data["author"])
	}
}

// Abuse case 2 — a record whose enter lies past design-approval is
// rejected at arming, even from an authorized developer.
func TestAbuseCase2StartPastDesignApprovalIsRejectedAtArming(t *testing.T) {
	r := newHandoffRig(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	body := strings.Replace(render(t, rec)[0], "enter: design-approval\n", "enter: implementation\n", 1)
	require.Contains(t, body, "enter: implementation")
	r.say("dev", body)
	r.say("dev", "the-loop start")
	act := r.poll()
	require.Equal(t, "started", act.Action, act.Detail)
	assertNoHandoff(t, r)
	ignored := r.events(EventHandoffIgnored)
	require.Len(t, ignored, 1)
	assert.Equal(t, string(handoff.CodeEnterNotAllowed), ignored[0].Data["code"])
}

// Abuse case 3 — a new record posted after the walk started never reaches
// state: the first record stays frozen and the selection follows it.
func TestAbuseCase3NewRecordOnAStartedItemChangesNothing(t *testing.T) {
	r := newHandoffRig(t)
	first, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByTicket})
	firstURL := r.post(first)
	r.say("dev", "the-loop start")
	require.Equal(t, "started", r.poll().Action)
	frozen := *r.state().Handoff

	later, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket, Extra: "a later record"})
	r.say("dev", render(t, later)[0])
	r.post(later)
	r.poll()
	// A second start through the service is refused by the runtime's guard.
	hs, _, _ := FindHandoff(r.svc.Config(), commentsOf(r))
	require.NotNil(t, hs)
	require.NotEqual(t, firstURL, hs.CommentURL, "the newer record is the one a fresh item would take")
	res, _, err := r.svc.startWith(r.ctx(), StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}, Handoff: hs}, "https://claude.ai/artifact/x")
	require.NoError(t, err)
	assert.False(t, res.Started)

	st := r.state()
	assert.Equal(t, frozen, *st.Handoff, "state is unchanged")
	assert.Empty(t, st.ClaudeArtifactURL)
	r.say("alice", "the-loop execute")
	r.poll()
	imp, err := r.svc.HandoffImport(r.ctx(), HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}})
	require.NoError(t, err)
	assert.Equal(t, []string{handoff.Brainstorm}, imp.Written, "the files come from the frozen record's own comment")
	r.complete()
	assert.Equal(t, handoff.NodeBrainstormApproval, r.state().CurrentNode, "the walk follows the frozen record")
}

func commentsOf(r *handoffRig) []integrations.Comment {
	p, err := r.svc.Provider("github")
	require.NoError(r.t, err)
	cs, err := p.ListComments(r.ctx(), r.ref)
	require.NoError(r.t, err)
	return cs
}

// Abuse case 4 — a file that does not hash to the record is refused by
// import (nothing unverified is written) and the hook demotes the walk to
// the file's producer.
func TestAbuseCase4ArtifactHashMismatchIsRefusedAndDemoted(t *testing.T) {
	r := newHandoffRig(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByArtifact})
	r.post(rec)
	r.armAndSelect()
	require.Equal(t, "import-handoff", r.state().CurrentNode)
	page := filepath.Join(t.TempDir(), "artifact.html")
	require.NoError(t, os.WriteFile(page, handofftest.SpecArtifactHTML(handofftest.Tampered(files, handoff.Requirements)), 0o644))

	res, err := r.svc.HandoffImport(r.ctx(), HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}, FromArtifact: page})
	require.NoError(t, err)
	assert.False(t, res.OK)
	assert.Equal(t, []HandoffFileFailure{{Name: handoff.Requirements, Reason: "does not match the record's sha256"}}, res.Failed)
	assert.Equal(t, []string{handoff.Brainstorm}, res.Written)
	assert.Equal(t, []string{handoff.DesignDoc, handoff.TestingPlan}, res.Held)
	_, err = os.Stat(filepath.Join(r.specDir(), handoff.Requirements))
	assert.ErrorIs(t, err, os.ErrNotExist, "the mismatched file is not written")
	_, err = os.Stat(filepath.Join(r.specDir(), handoff.DesignDoc))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing after the failure is written")

	env := r.complete()
	assert.Equal(t, "requirements-definition", env.CurrentNode, env.Messages)
	dem := r.state().HandoffDemoted
	require.Len(t, dem, 1)
	assert.Equal(t, handoff.Requirements, dem[0].Artifact)
	assert.Equal(t, "https://claude.ai/artifact/0b5e-handoff", r.state().ClaudeArtifactURL, "the artifact URL was recorded at arming")
}

// Abuse case 5 — instructions inside a carried body are carried verbatim as
// a file and change nothing: the walk lands where a clean record lands, and
// the loop never repeats a body's text in anything it posts.
func TestAbuseCase5InstructionsInABodyAreCarriedVerbatim(t *testing.T) {
	landing := func(extra string) (string, *handoffRig, map[string]string) {
		r := newHandoffRig(t)
		rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByTicket, Extra: extra})
		r.post(rec)
		r.armAndSelect()
		res, err := r.svc.HandoffImport(r.ctx(), HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}})
		require.NoError(t, err)
		require.True(t, res.OK, res.Failed)
		return r.complete().CurrentNode, r, files
	}
	clean, _, _ := landing("")
	hostile, r, files := landing(handofftest.Injection)
	assert.Equal(t, clean, hostile)
	assert.Equal(t, handoff.NodeRequirementsApproval, hostile)
	for name, body := range files {
		got, err := os.ReadFile(filepath.Join(r.specDir(), name))
		require.NoError(t, err)
		assert.Equal(t, body, string(got), "written verbatim")
	}
	for _, c := range r.gh.Comments(r.ref) {
		if c.Author == r.gh.BotLogin() && !strings.Contains(c.Body, handoff.RecordMarker) {
			assert.NotContains(t, c.Body, handofftest.Injection, "no comment the loop composes carries body text")
		}
	}
}

// Abuse case 6 — a record edited after the walk started never reaches
// state, and bodies changed by the edit fail verification against the
// frozen hashes, so the walk is demoted, never advanced.
func TestAbuseCase6RecordEditedAfterStartChangesNothing(t *testing.T) {
	r := newHandoffRig(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByTicket})
	r.post(rec)
	r.armAndSelect()
	frozen := *r.state().Handoff

	// Edit the record into another valid one: design-settled, new bodies
	// and their hashes.
	edited, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket, Extra: "edited"})
	p, err := r.svc.Provider("github")
	require.NoError(t, err)
	var id int64
	for _, c := range commentsOf(r) {
		if c.URL == frozen.CommentURL {
			id = c.ID
		}
	}
	require.NotZero(t, id)
	by, err := handoff.PostedByLine("dev")
	require.NoError(t, err)
	_, err = p.EditComment(r.ctx(), r.ref, id, render(t, edited)[0]+"\n"+by)
	require.NoError(t, err)
	r.poll()
	assert.Equal(t, frozen, *r.state().Handoff, "state is unchanged")

	res, err := r.svc.HandoffImport(r.ctx(), HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}})
	require.NoError(t, err)
	assert.Empty(t, res.Written, "the edited bodies do not hash to the frozen record")
	assert.Len(t, res.Failed, len(files))
	env := r.complete()
	assert.Equal(t, handoff.NodeBrainstorming, env.CurrentNode, "nothing verifies, so the chain restarts")
}

// Abuse case 7 — arming the Jira copy of an issue is refused with
// arm.refused (reason mirror); the copy is never walked.
func TestAbuseCase7ArmingTheJiraCopyIsRefused(t *testing.T) {
	jr := providertest.NewJira(t, "datacenter")
	cfg := config.Default()
	cfg.Integrations.Jira.BaseURL = jr.URL()
	cfg.Integrations.Jira.Auth = "datacenter"
	cfg.Integrations.Jira.TokenEnv = "TEST_JIRA_TOKEN"
	cfg.Integrations.Jira.Projects = []string{"PROJ"}
	cfg.Routing.AuthorizedUsers = []string{"dev"}
	svc := testService(t, cfg, Deps{Signer: runtime.NewSigner([]byte("k")), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Providers: func(system string) (integrations.Provider, error) {
			return providers.New(cfg, system, func(string) string { return jr.Token() })
		}})
	repo := t.TempDir()
	mirror := jr.SeedIssue("Copy of octo/widgets#2", []string{handoff.MirrorLabel}, true)
	jr.AddComment(mirror, "dev", "", "the-loop start")
	original := jr.SeedIssue("A real ticket", nil, true)
	jr.AddComment(original, "dev", "", "the-loop start")
	p := &Poller{Svc: svc, Sources: []config.Source{{System: "jira", Projects: []string{"PROJ"}, Checkout: repo}}}

	acts := map[string]ItemAction{}
	for _, src := range p.RunOnce(t.Context()).Sources {
		require.Empty(t, src.Error)
		for _, it := range src.Items {
			acts[it.WorkItem] = it
		}
	}
	assert.Equal(t, "refused", acts[mirror.Key].Action)
	assert.Contains(t, acts[mirror.Key].Detail, handoff.MirrorLabel)
	assert.Equal(t, "started", acts[original.Key].Action, "an ordinary Jira ticket still arms")
	evlog, err := svc.Events(t.Context(), ItemRequest{Repo: repo, WorkItem: mirror.Key})
	evs := evlog.Events
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, EventArmRefused, evs[0].Name)
	assert.Equal(t, "mirror", evs[0].Data["reason"])
	sess, err := svc.open(t.Context(), repo, mirror.Key, "")
	require.NoError(t, err)
	assert.Empty(t, sess.state.CurrentNode, "the mirror has no walk")
}

// A developer starting the walk from a shell (the skill's "continue in this
// session" ending) picks up the authorized record exactly as arming does.
func TestGraphStartFromAShellTakesTheHandoff(t *testing.T) {
	r := newHandoffRig(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByTicket})
	url := r.post(rec)
	res, err := r.svc.Start(r.ctx(), StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}, Ref: r.ref.String()})
	require.NoError(t, err)
	require.True(t, res.Started)
	st := r.state()
	require.NotNil(t, st.Handoff)
	assert.Equal(t, url, st.Handoff.CommentURL)
}
