package service

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
)

func TestHandoffPostRefusesPointersThatDoNotExist(t *testing.T) {
	tests := []struct {
		name  string
		setup func(r *handoffRig, rec *handoff.Record, files map[string]string)
		want  string
	}{
		{"branch never pushed", func(r *handoffRig, rec *handoff.Record, _ map[string]string) {
			rec.Branch = "the-loop/" + r.id + "-missing"
		}, "push the spec branch before posting the record"},
		{"branch file differs", func(r *handoffRig, rec *handoff.Record, files map[string]string) {
			r.pushBranch(rec, handofftest.Tampered(files, handoff.Requirements))
		}, "push the file the record hashed"},
		{"pull request from another branch", func(r *handoffRig, rec *handoff.Record, files map[string]string) {
			r.pushBranch(rec, files)
			rec.Branch += "-other"
			r.gh.SeedBranch(providertest.GitHubRepo, rec.Branch, providertest.GitHubMainSHA)
			for name, body := range files {
				r.gh.SeedFile(providertest.GitHubRepo, rec.Branch, "docs/specs/"+r.id+"/"+name, body)
			}
		}, "not the record's branch"},
		{"ticket that does not exist", func(r *handoffRig, rec *handoff.Record, files map[string]string) {
			r.pushBranch(rec, files)
			r.ref.Number = 999
		}, "the ticket github:octo/widgets#999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newHandoffRig(t)
			rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled})
			tt.setup(r, &rec, files)
			before := len(r.gh.Comments(r.ref))
			_, err := r.svc.HandoffPost(r.ctx(), HandoffPostRequest{Repo: r.repo, WorkItem: r.ref.String(), Record: rec, By: "dev"})
			require.ErrorIs(t, err, ErrHandoffRefused)
			assert.Contains(t, err.Error(), tt.want)
			assert.Len(t, r.gh.Comments(r.ref), before, "nothing is posted")
		})
	}
}

func TestHandoffPostRefusesAnInvalidRecord(t *testing.T) {
	r := newHandoffRig(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	rec.Enter = "implementation"
	_, err := r.svc.HandoffPost(r.ctx(), HandoffPostRequest{WorkItem: r.ref.String(), Record: rec, By: "dev"})
	require.ErrorIs(t, err, ErrHandoffRefused)
	assert.Contains(t, err.Error(), "never starts past design-approval")
	_, err = r.svc.HandoffPost(r.ctx(), HandoffPostRequest{WorkItem: "not a ref", Record: rec, By: "dev"})
	require.ErrorIs(t, err, ErrHandoffRefused)
	assert.Contains(t, err.Error(), "workItem")
	assert.Zero(t, r.gh.RequestCount(), "a refused record sends no request")
}

func TestHandoffPostSplitsIntoPartsAndRetriesWithoutRepeating(t *testing.T) {
	r := newHandoffRig(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	long := strings.Repeat("A line of the design that goes on for a while, to fill the comment.\n", 1500)
	rec.Files[handoff.DesignDoc] += long
	rec.Artifacts[2].SHA256 = handoff.HashLF([]byte(rec.Files[handoff.DesignDoc]))
	res, err := r.svc.HandoffPost(r.ctx(), HandoffPostRequest{WorkItem: r.ref.String(), Record: rec, By: "dev"})
	require.NoError(t, err)
	require.Greater(t, len(res.Comments), 1, "the files move on into continuation parts")
	stored := r.gh.Comments(r.ref)
	require.Len(t, stored, len(res.Comments))
	for i, c := range stored {
		assert.LessOrEqual(t, utf8.RuneCountInString(c.Body), handoff.MaxCommentChars, "comment %d fits, marker included", i)
		assert.True(t, integrations.IsSelfAuthored(c.Body))
		assert.Equal(t, r.gh.BotLogin(), c.Author)
	}
	hs, _, _ := FindHandoff(r.svc.Config(), commentsOf(r))
	require.NotNil(t, hs, "the loop's own self-marked record and parts are honoured")
	assert.Equal(t, res.Comments[0].URL, hs.CommentURL)

	again, err := r.svc.HandoffPost(r.ctx(), HandoffPostRequest{WorkItem: r.ref.String(), Record: rec, By: "dev"})
	require.NoError(t, err)
	for _, c := range again.Comments {
		assert.True(t, c.Existing)
	}
	assert.Len(t, r.gh.Comments(r.ref), len(res.Comments), "a retried post repeats nothing")
}

func TestSelfRecordNeedsSelfLogins(t *testing.T) {
	r := newHandoffRig(t)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByTicket})
	r.post(rec)
	r.svc.Config().Routing.SelfLogins = nil
	hs, _, evs := FindHandoff(r.svc.Config(), commentsOf(r))
	assert.Nil(t, hs, "without routing.selfLogins a marker proves nothing")
	require.Len(t, evs, 1)
	assert.Equal(t, string(handoff.CodeUnauthorized), evs[0].Data["code"])
}

func TestHandoffShow(t *testing.T) {
	r := newHandoffRig(t)
	v, err := r.svc.HandoffShow(r.ctx(), ItemRequest{Repo: r.repo, WorkItem: r.id})
	require.NoError(t, err)
	assert.Nil(t, v.Handoff)
	assert.False(t, v.Started)

	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByArtifact})
	url := r.post(rec)
	r.say("dev", "the-loop start")
	r.poll()
	v, err = r.svc.HandoffShow(r.ctx(), ItemRequest{Repo: r.repo, WorkItem: r.id})
	require.NoError(t, err)
	require.NotNil(t, v.Handoff)
	assert.Equal(t, url, v.Handoff.CommentURL)
	assert.Equal(t, rec.SpecArtifact, v.ClaudeArtifactURL)
	assert.Equal(t, "phase-selection", v.CurrentNode)
	assert.Empty(t, v.HandoffDemoted)
	_, err = r.svc.HandoffShow(r.ctx(), ItemRequest{Repo: r.repo, WorkItem: "../etc"})
	assert.Error(t, err)
}

func TestHandoffImportRefusals(t *testing.T) {
	r := newHandoffRig(t)
	_, err := r.svc.HandoffImport(r.ctx(), HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}})
	require.ErrorIs(t, err, ErrNoHandoff)

	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByArtifact})
	r.post(rec)
	r.armAndSelect()
	req := HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}}
	_, err = r.svc.HandoffImport(r.ctx(), req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `<script id="the-loop-spec-files">`, "an artifact-carried record needs its extracted files")

	both := req
	both.FromDir, both.Files = t.TempDir(), files
	_, err = r.svc.HandoffImport(r.ctx(), both)
	assert.ErrorContains(t, err, "give one source")

	dir := t.TempDir()
	handofftest.WriteFiles(t, dir, files)
	fromDir := req
	fromDir.FromDir = dir
	res, err := r.svc.HandoffImport(r.ctx(), fromDir)
	require.NoError(t, err)
	assert.True(t, res.OK)
	assert.Equal(t, "docs/specs/"+r.id, res.SpecDir)
	got, err := os.ReadFile(filepath.Join(r.specDir(), handoff.Brainstorm))
	require.NoError(t, err)
	assert.Equal(t, files[handoff.Brainstorm], string(got))

	r.complete()
	_, err = r.svc.HandoffImport(r.ctx(), fromDir)
	assert.ErrorContains(t, err, "already passed import-handoff", "after the node the files are the walk's own")
}

func TestHandoffNoteEditsTheLoopsOwnRecord(t *testing.T) {
	r := newHandoffRig(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByTicket})
	url := r.post(rec)
	r.armAndSelect()
	_, err := r.svc.HandoffImport(r.ctx(), HandoffImportRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}})
	require.NoError(t, err)
	branchRec := rec
	r.pushBranch(&branchRec, files)

	req := HandoffNoteRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}, Branch: branchRec.Branch, PullRequest: branchRec.PullRequest}
	res, err := r.svc.HandoffNote(r.ctx(), req)
	require.NoError(t, err)
	assert.Equal(t, "edited", res.Action)
	assert.Equal(t, url, res.CommentURL)
	assert.Equal(t, []string{handoff.Brainstorm, handoff.Requirements}, res.Committed)
	var body string
	for _, c := range r.gh.Comments(r.ref) {
		if strings.HasSuffix(url, "-"+strconv.FormatInt(c.ID, 10)) {
			body = c.Body
		}
	}
	edited, err := handoff.Parse(body)
	require.NoError(t, err)
	assert.Equal(t, handoff.CarriedByBranch, edited.CarriedBy)
	assert.Equal(t, branchRec.Branch, edited.Branch)
	assert.Equal(t, branchRec.PullRequest, edited.PullRequest)
	assert.Equal(t, rec.Artifacts, edited.Artifacts, "the hashes are kept")
	assert.Equal(t, rec.Enter, edited.Enter)

	_, err = r.svc.HandoffNote(r.ctx(), HandoffNoteRequest{ItemRequest: req.ItemRequest, Branch: "main", PullRequest: 1})
	assert.ErrorContains(t, err, "the-loop/")
	_, err = r.svc.HandoffNote(r.ctx(), HandoffNoteRequest{ItemRequest: req.ItemRequest, Branch: branchRec.Branch + "-x", PullRequest: branchRec.PullRequest})
	assert.ErrorContains(t, err, "give the branch the files were committed on")
}

func TestHandoffNotePostsOneSupersedingComment(t *testing.T) {
	r := newHandoffRig(t)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByTicket})
	dev := r.say("dev", render(t, rec)[0])
	r.armAndSelect()
	require.NotNil(t, r.state().Handoff)
	branchRec := rec
	r.pushBranch(&branchRec, handofftest.Tampered(files, handoff.Requirements))
	handofftest.WriteFiles(t, r.specDir(), map[string]string{handoff.Brainstorm: files[handoff.Brainstorm]})
	req := HandoffNoteRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: r.id}, Branch: branchRec.Branch, PullRequest: branchRec.PullRequest}

	res, err := r.svc.HandoffNote(r.ctx(), req)
	require.NoError(t, err)
	assert.Equal(t, "posted", res.Action, "a developer's record is not the loop's to edit")
	assert.Equal(t, []string{handoff.Requirements}, res.Unverified)
	note := r.lastOwn(handoffNoteMarker)
	assert.Contains(t, note.Body, "on branch `"+branchRec.Branch+"` (pull request #")
	assert.Contains(t, note.Body, "- `brainstorm.md` sha256:"+rec.Artifacts[0].SHA256+" — committed, matches the record")
	assert.Contains(t, note.Body, "- `requirements.md` — not committed as handed off; the walk redoes requirements-definition")
	assert.NotContains(t, note.Body, handoff.RecordMarker, "the note is not a record")
	stored := r.gh.Comments(r.ref)
	for _, c := range stored {
		if c.ID == dev.ID {
			assert.Equal(t, dev.Body, c.Body, "the developer's record is untouched")
		}
	}

	again, err := r.svc.HandoffNote(r.ctx(), req)
	require.NoError(t, err)
	assert.Equal(t, "updated", again.Action)
	assert.Len(t, r.gh.Comments(r.ref), len(stored), "one superseding comment, however often note runs")
}
