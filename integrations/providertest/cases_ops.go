package providertest

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

func basicOf(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

// opCases holds one happy-path case per operation.
var opCases = map[integrations.Op]func(t *testing.T, h *rig){
	integrations.OpGetIssue:          caseGetIssue,
	integrations.OpCreateIssue:       caseCreateIssue,
	integrations.OpEditIssue:         caseEditIssue,
	integrations.OpListComments:      caseListComments,
	integrations.OpCreateComment:     caseCreateComment,
	integrations.OpEditComment:       caseEditComment,
	integrations.OpAddLabels:         caseAddLabels,
	integrations.OpRemoveLabel:       caseRemoveLabel,
	integrations.OpEnsureLabels:      caseEnsureLabels,
	integrations.OpAddReaction:       caseAddReaction,
	integrations.OpCreateBranch:      caseCreateBranch,
	integrations.OpCreatePullRequest: caseCreatePullRequest,
	integrations.OpGetPullRequest:    caseGetPullRequest,
	integrations.OpReadFile:          caseReadFile,
	integrations.OpListProjects:      caseListProjects,
	integrations.OpLinkPullRequest:   caseLinkPullRequest,
	integrations.OpListOpenIssues:    caseListOpenIssues,
	integrations.OpReadRelations:     caseReadRelations,
}

func caseGetIssue(t *testing.T, h *rig) {
	is, err := h.p.GetIssue(h.ctx, h.ref())
	require.NoError(t, err)
	assert.Equal(t, "Seeded ticket", is.Title)
	assert.Equal(t, "Seeded body", is.Body)
	assert.Equal(t, []string{"bug"}, is.Labels)
	assert.Equal(t, "alice", is.Author)
	assert.NotEmpty(t, is.State)
	assert.NotEmpty(t, is.URL)
	assert.Equal(t, h.ref().System, is.Ref.System)
	want := h.ref()
	assert.Equal(t, []any{want.Key, want.Owner, want.Repo, want.Number}, []any{is.Ref.Key, is.Ref.Owner, is.Ref.Repo, is.Ref.Number})
}

func caseCreateIssue(t *testing.T, h *rig) {
	in := h.f.NewIssue("Created by the contract")
	got, err := h.p.CreateIssue(h.ctx, in)
	require.NoError(t, err)
	assert.NotEmpty(t, got.URL)
	stored, ok := h.f.Issue(got.Ref)
	require.True(t, ok, "the created issue %s is not in the fake", got.Ref)
	assert.Equal(t, in.Title, stored.Title)
	assert.Equal(t, in.Body, stored.Body)
	assert.Equal(t, in.Labels, stored.Labels)
	assert.Equal(t, in.IssueType, stored.IssueType)
	assert.Equal(t, in.Parent, stored.Parent)
	again, err := h.p.GetIssue(h.ctx, got.Ref)
	require.NoError(t, err)
	assert.Equal(t, in.Title, again.Title)
}

func caseEditIssue(t *testing.T, h *rig) {
	require.NoError(t, h.p.EditIssueBody(h.ctx, h.ref(), "Replaced body"))
	stored, ok := h.f.Issue(h.ref())
	require.True(t, ok)
	assert.Equal(t, "Replaced body", stored.Body)
}

func caseListComments(t *testing.T, h *rig) {
	a := h.f.AddComment(h.ref(), "alice", "MEMBER", "first")
	b := h.f.AddComment(h.ref(), "bob", "NONE", "second")
	got, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	require.Len(t, got, 2)
	for i, want := range []Comment{a, b} {
		assert.Equal(t, want.ID, got[i].ID)
		assert.Equal(t, want.Author, got[i].Author, "the author comes from the API")
		assert.Equal(t, want.Body, got[i].Body)
		assert.True(t, want.Created.Equal(got[i].CreatedAt), "created %v vs %v", want.Created, got[i].CreatedAt)
		assert.True(t, want.Updated.Equal(got[i].UpdatedAt))
		assert.NotEmpty(t, got[i].URL)
		if h.f.System() == "github" {
			assert.Equal(t, want.Association, got[i].AuthorAssociation)
		}
	}
}

func caseCreateComment(t *testing.T, h *rig) {
	got, err := h.p.CreateComment(h.ctx, h.ref(), "A status update.")
	require.NoError(t, err)
	stored := h.f.Comments(h.ref())
	require.Len(t, stored, 1)
	assert.Equal(t, stored[0].ID, got.ID)
	assert.Equal(t, h.f.BotLogin(), got.Author)
	assert.True(t, strings.HasPrefix(stored[0].Body, "A status update."))
	assert.True(t, integrations.IsSelfAuthored(stored[0].Body))
	assert.NotEmpty(t, got.URL)
}

func caseEditComment(t *testing.T, h *rig) {
	c := h.f.AddComment(h.ref(), h.f.BotLogin(), "NONE", integrations.MarkSelfAuthored("draft"))
	got, err := h.p.EditComment(h.ctx, h.ref(), c.ID, "final")
	require.NoError(t, err)
	assert.Equal(t, c.ID, got.ID)
	stored := h.f.Comments(h.ref())
	require.Len(t, stored, 1)
	assert.True(t, strings.HasPrefix(stored[0].Body, "final"))
	assert.True(t, integrations.IsSelfAuthored(stored[0].Body))
	assert.Equal(t, 1, strings.Count(stored[0].Body, integrations.SelfMarker))
}

func caseAddLabels(t *testing.T, h *rig) {
	require.NoError(t, h.p.AddLabels(h.ctx, h.ref(), []string{"loop:design", "loop:design", "the-loop-mirror"}))
	stored, _ := h.f.Issue(h.ref())
	assert.Equal(t, []string{"bug", "loop:design", "the-loop-mirror"}, stored.Labels)
	before := h.f.RequestCount()
	require.NoError(t, h.p.AddLabels(h.ctx, h.ref(), nil))
	assert.Equal(t, before, h.f.RequestCount(), "adding no labels sends nothing")
}

func caseRemoveLabel(t *testing.T, h *rig) {
	require.NoError(t, h.p.RemoveLabel(h.ctx, h.ref(), "bug"))
	stored, _ := h.f.Issue(h.ref())
	assert.NotContains(t, stored.Labels, "bug")
	assert.NoError(t, h.p.RemoveLabel(h.ctx, h.ref(), "absent"), "removing an absent label is not an error")
	require.NoError(t, integrations.SetPhaseLabel(h.ctx, h.p, h.ref(), "design"))
	require.NoError(t, integrations.SetPhaseLabel(h.ctx, h.p, h.ref(), "verification"))
	stored, _ = h.f.Issue(h.ref())
	assert.Equal(t, []string{"loop:verification"}, stored.Labels, "SetPhaseLabel leaves exactly one phase label")
}

func caseEnsureLabels(t *testing.T, h *rig) {
	le, ok := h.p.(integrations.LabelEnsurer)
	require.True(t, ok)
	specs := []integrations.LabelSpec{{Name: "bug", Color: "000000"}, {Name: "loop:design", Color: "0e8a16", Description: "phase"}, {Name: "the-loop: auto-execute"}}
	require.NoError(t, le.EnsureLabels(h.ctx, "octo", "widgets", specs))
	defs, created := h.f.LabelDefinitions(GitHubRepo)
	assert.Equal(t, "d73a4a", defs["bug"], "an existing label is left untouched")
	assert.Equal(t, "0e8a16", defs["loop:design"])
	assert.Equal(t, "ededed", defs["the-loop: auto-execute"])
	assert.Equal(t, 2, created)
	require.NoError(t, le.EnsureLabels(h.ctx, "octo", "widgets", specs))
	_, created = h.f.LabelDefinitions(GitHubRepo)
	assert.Equal(t, 2, created, "ensuring again creates nothing")
	err := le.EnsureLabels(h.ctx, "octo", "widgets", []integrations.LabelSpec{{Name: "x", Color: "red"}})
	assert.ErrorIs(t, err, integrations.ErrInvalid)
}

func caseAddReaction(t *testing.T, h *rig) {
	c := h.f.AddComment(h.ref(), "alice", "MEMBER", "the-loop start")
	require.NoError(t, h.p.AddReaction(h.ctx, h.ref(), c.ID, "eyes"))
	require.NoError(t, h.p.AddReaction(h.ctx, h.ref(), 0, "rocket"))
	assert.Equal(t, []string{"eyes"}, h.f.Comments(h.ref())[0].Reactions)
	stored, _ := h.f.Issue(h.ref())
	assert.Equal(t, []string{"rocket"}, stored.Reactions)
	before := h.f.RequestCount()
	assert.ErrorIs(t, h.p.AddReaction(h.ctx, h.ref(), c.ID, "party"), integrations.ErrInvalid)
	assert.Equal(t, before, h.f.RequestCount(), "an unknown reaction is refused before any request")
}

func caseCreateBranch(t *testing.T, h *rig) {
	require.NoError(t, h.p.CreateBranch(h.ctx, "octo", "widgets", "the-loop/issue-1", GitHubMainSHA))
	assert.Equal(t, GitHubMainSHA, h.f.Ref(GitHubRepo, "the-loop/issue-1"))
	assert.NoError(t, h.p.CreateBranch(h.ctx, "octo", "widgets", "the-loop/issue-1", GitHubMainSHA), "same branch at the same commit is idempotent")
	other := strings.Repeat("2", 40)
	assert.ErrorIs(t, h.p.CreateBranch(h.ctx, "octo", "widgets", "the-loop/issue-1", other), integrations.ErrInvalid)
	before := h.f.RequestCount()
	for _, bad := range []string{"bad..name", "has space", "-/x.lock", "/lead", "x@{1}"} {
		assert.ErrorIs(t, h.p.CreateBranch(h.ctx, "octo", "widgets", bad, GitHubMainSHA), integrations.ErrInvalid, bad)
	}
	assert.Equal(t, before, h.f.RequestCount(), "bad branch names are refused before any request")
}

func caseCreatePullRequest(t *testing.T, h *rig) {
	h.f.SeedBranch(GitHubRepo, "feature", strings.Repeat("3", 40))
	pr, err := h.p.CreatePullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Feature", Body: "body", Head: "feature", Base: "main", Draft: true})
	require.NoError(t, err)
	assert.Positive(t, pr.Number)
	assert.NotEmpty(t, pr.URL)
	assert.Equal(t, "feature", pr.Head)
	assert.Equal(t, "main", pr.Base)
	assert.True(t, pr.Draft)
	_, err = h.p.CreatePullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Feature", Head: "missing", Base: "main"})
	assert.ErrorIs(t, err, integrations.ErrInvalid)
}

func caseGetPullRequest(t *testing.T, h *rig) {
	h.f.SeedBranch(GitHubRepo, "feature", strings.Repeat("3", 40))
	created, err := h.p.CreatePullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Feature", Head: "feature", Base: "main"})
	require.NoError(t, err)
	got, err := h.p.GetPullRequest(h.ctx, "octo", "widgets", created.Number)
	require.NoError(t, err)
	assert.Equal(t, created, got)
	_, err = h.p.GetPullRequest(h.ctx, "octo", "widgets", 999)
	assert.ErrorIs(t, err, integrations.ErrNotFound)
}

func caseReadFile(t *testing.T, h *rig) {
	data, err := h.p.ReadFile(h.ctx, "octo", "widgets", "docs/readme.md", "")
	require.NoError(t, err)
	assert.Equal(t, "hello from the fake\n", string(data))
	h.f.SeedFile(GitHubRepo, "feature", "docs/readme.md", "on a branch\n")
	data, err = h.p.ReadFile(h.ctx, "octo", "widgets", "docs/readme.md", "feature")
	require.NoError(t, err)
	assert.Equal(t, "on a branch\n", string(data))
	_, err = h.p.ReadFile(h.ctx, "octo", "widgets", "docs/absent.md", "")
	assert.ErrorIs(t, err, integrations.ErrNotFound)
	before := h.f.RequestCount()
	for _, bad := range []string{"../etc/passwd", "/abs", "a/../b", ""} {
		_, err = h.p.ReadFile(h.ctx, "octo", "widgets", bad, "")
		assert.ErrorIs(t, err, integrations.ErrInvalid, bad)
	}
	assert.Equal(t, before, h.f.RequestCount())
}

func caseListProjects(t *testing.T, h *rig) {
	got, err := h.p.ListProjects(h.ctx)
	require.NoError(t, err)
	assert.Equal(t, h.f.Projects(), got)
}

func caseLinkPullRequest(t *testing.T, h *rig) {
	linker, ok := h.p.(integrations.PullRequestLinker)
	require.True(t, ok)
	h.f.SeedBranch(GitHubRepo, "feature", strings.Repeat("3", 40))
	pr, err := h.p.CreatePullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Feature", Body: "Does things.", Head: "feature", Base: "main"})
	require.NoError(t, err)
	require.NoError(t, linker.LinkPullRequest(h.ctx, h.ref(), "octo", "widgets", pr.Number))
	require.NoError(t, linker.LinkPullRequest(h.ctx, h.ref(), "octo", "widgets", pr.Number))
	body, _ := h.f.PullBody(GitHubRepo, pr.Number)
	assert.Equal(t, "Does things.\n\nCloses #1\n", body, "linked once, idempotently")
}

func testSelfMarker(t *testing.T, h *rig) {
	if !integrations.Supports(h.p, integrations.OpCreateComment) {
		t.Skip("provider posts no comments")
	}
	_, err := h.p.CreateComment(h.ctx, h.ref(), "hello")
	require.NoError(t, err)
	h.f.AddComment(h.ref(), "alice", "MEMBER", "a human reply")
	got, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	require.Len(t, got, 2)
	human := slices.DeleteFunc(slices.Clone(got), func(c integrations.Comment) bool { return integrations.IsSelfAuthored(c.Body) })
	require.Len(t, human, 1, "the loop's own comment is recognisable from the listing")
	assert.Equal(t, "alice", human[0].Author)
	_, err = h.p.CreateComment(h.ctx, h.ref(), "  \n")
	assert.ErrorIs(t, err, integrations.ErrInvalid, "an empty comment is refused")
}

func caseListOpenIssues(t *testing.T, h *rig) {
	lister, ok := h.p.(integrations.IssueLister)
	require.True(t, ok)
	h.f.SetPageSize(2)
	a := h.f.SeedIssue("armed", []string{"the-loop-armed"}, true)
	h.f.SeedIssue("closed", []string{"the-loop-armed"}, false)
	b := h.f.SeedIssue("plain", nil, true)
	if h.f.System() == "github" {
		h.f.SeedBranch(GitHubRepo, "feature", strings.Repeat("3", 40))
		_, err := h.p.CreatePullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "PR", Head: "feature", Base: "main"})
		require.NoError(t, err)
	}
	h.f.AddComment(b, "alice", "OWNER", "first")
	h.f.AddComment(b, "bob", "MEMBER", "second")
	listed, err := lister.ListOpenIssues(h.ctx, h.f.Container(), "")
	require.NoError(t, err)
	var titles []string
	var got []integrations.Issue
	for _, is := range listed {
		assert.NotEmpty(t, is.URL)
		assert.Equal(t, h.ref().System, is.Ref.System)
		if is.Pull {
			assert.Equal(t, "github", h.f.System(), "only GitHub lists pull requests among the issues")
			assert.Equal(t, "PR", is.Title)
			continue
		}
		titles = append(titles, is.Title)
		got = append(got, is)
	}
	assert.Equal(t, []string{"plain", "armed", "Seeded ticket"}, titles, "open issues, newest first, pull requests marked apart")
	if h.f.System() == "github" {
		assert.Equal(t, len(listed), len(got)+1, "the open pull request comes marked")
		assert.True(t, got[0].CommentsKnown)
		assert.Equal(t, 2, got[0].Comments, "GitHub's listing counts the comments")
	} else {
		assert.False(t, got[0].CommentsKnown, "Jira's search counts no comments")
	}
	assert.Equal(t, []string{b.Key, a.Key, h.ref().Key}, []string{got[0].Ref.Key, got[1].Ref.Key, got[2].Ref.Key})
	assert.Equal(t, []int{b.Number, a.Number, h.ref().Number}, []int{got[0].Number, got[1].Number, got[2].Number})

	got, err = lister.ListOpenIssues(h.ctx, h.f.Container(), "the-loop-armed")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "armed", got[0].Title)
	assert.Equal(t, []string{"the-loop-armed"}, got[0].Labels)

	before := h.f.RequestCount()
	_, err = lister.ListOpenIssues(h.ctx, "not a container", "")
	assert.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Equal(t, before, h.f.RequestCount())
}
