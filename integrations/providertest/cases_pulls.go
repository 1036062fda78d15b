package providertest

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// The pull-request operations' happy paths join opCases, so the suite
// requires one for each such operation a provider declares.
func init() {
	for op, c := range pullOpCases {
		opCases[op] = c
	}
}

var pullOpCases = map[integrations.Op]func(t *testing.T, h *rig){
	integrations.OpOpenPullRequest:      caseOpenPullRequest,
	integrations.OpListPullRequests:     caseListPullRequests,
	integrations.OpListPullRequestFiles: caseListPullRequestFiles,
	integrations.OpListReviews:          caseListReviews,
	integrations.OpListReviewComments:   caseListReviewComments,
	integrations.OpReadChecks:           caseReadChecks,
	integrations.OpListReviewThreads:    caseListReviewThreads,
	integrations.OpLinkTicket:           caseLinkTicket,
	integrations.OpReadCheckDetails:     caseReadCheckDetails,
}

// optionalInterfaces says, per optional operation, whether p implements
// the interface behind it: the operation is declared exactly when it does.
var optionalInterfaces = map[integrations.Op]func(p integrations.Provider) bool{
	integrations.OpEnsureLabels:         func(p integrations.Provider) bool { _, ok := p.(integrations.LabelEnsurer); return ok },
	integrations.OpListOpenIssues:       func(p integrations.Provider) bool { _, ok := p.(integrations.IssueLister); return ok },
	integrations.OpLinkPullRequest:      func(p integrations.Provider) bool { _, ok := p.(integrations.PullRequestLinker); return ok },
	integrations.OpOpenPullRequest:      func(p integrations.Provider) bool { _, ok := p.(integrations.PullRequestOpener); return ok },
	integrations.OpListPullRequests:     func(p integrations.Provider) bool { _, ok := p.(integrations.PullRequestLister); return ok },
	integrations.OpListPullRequestFiles: func(p integrations.Provider) bool { _, ok := p.(integrations.PullRequestFileLister); return ok },
	integrations.OpListReviews:          func(p integrations.Provider) bool { _, ok := p.(integrations.ReviewLister); return ok },
	integrations.OpListReviewComments:   func(p integrations.Provider) bool { _, ok := p.(integrations.ReviewCommentLister); return ok },
	integrations.OpReadChecks:           func(p integrations.Provider) bool { _, ok := p.(integrations.CheckReader); return ok },
	integrations.OpListReviewThreads:    func(p integrations.Provider) bool { _, ok := p.(integrations.ReviewThreadLister); return ok },
	integrations.OpReadCheckDetails:     func(p integrations.Provider) bool { _, ok := p.(integrations.CheckDetailReader); return ok },
	integrations.OpLinkTicket:           func(p integrations.Provider) bool { _, ok := p.(integrations.TicketLinker); return ok },
	integrations.OpReadRelations:        func(p integrations.Provider) bool { _, ok := p.(integrations.RelationReader); return ok },
}

func testOptionalInterfaces(t *testing.T, p integrations.Provider) {
	declared := p.Operations()
	for op, implements := range optionalInterfaces {
		assert.Equal(t, implements(p), slices.Contains(declared, op), "%s declared iff its interface is implemented", op)
	}
}

// Seeded SHAs the pull request cases use.
var (
	shaA = strings.Repeat("a", 40)
	shaB = strings.Repeat("b", 40)
	shaC = strings.Repeat("c", 40)
)

func caseOpenPullRequest(t *testing.T, h *rig) {
	opener := h.p.(integrations.PullRequestOpener)
	h.f.SeedBranch(GitHubRepo, "the-loop/issue-1", shaA)
	in := integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Implement #1", Body: "Closes #1", Head: "the-loop/issue-1", Base: "main"}
	pr, created, err := opener.OpenPullRequest(h.ctx, in)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Positive(t, pr.Number)
	assert.Equal(t, []any{"octo", "widgets", "the-loop/issue-1", "main", shaA, "open", "Implement #1"},
		[]any{pr.Owner, pr.Repo, pr.Head, pr.Base, pr.HeadSHA, pr.State, pr.Title})
	assert.NotEmpty(t, pr.URL)

	again, created, err := opener.OpenPullRequest(h.ctx, in)
	require.NoError(t, err)
	assert.False(t, created, "the open pull request is adopted")
	assert.Equal(t, pr.Number, again.Number)
	assert.Equal(t, 1, h.f.OpenPullCount(GitHubRepo), "never a second pull request for the same head")

	theirs := h.f.SeedPull(GitHubRepo, "their-branch", "main", shaB, "A person's title")
	adopted, created, err := opener.OpenPullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Ours", Head: "their-branch", Base: "main"})
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, theirs, adopted.Number)
	assert.Equal(t, "A person's title", adopted.Title, "an adopted pull request keeps its title")

	h.f.SeedBranch(GitHubRepo, "release", GitHubMainSHA)
	_, _, err = opener.OpenPullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "x", Head: "the-loop/issue-1", Base: "release"})
	require.ErrorIs(t, err, integrations.ErrInvalid, "an open pull request into another base is not adopted")
	assert.Contains(t, err.Error(), "retarget or close it")

	h.f.SeedBranch(GitHubRepo, "raced", shaC)
	h.f.RaceNextPullCreate("raced", "main")
	raced, created, err := opener.OpenPullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "x", Head: "raced", Base: "main"})
	require.NoError(t, err, "a create that loses a race adopts the winner")
	assert.False(t, created)
	assert.Equal(t, "Opened concurrently", raced.Title)

	before := h.f.RequestCount()
	for _, bad := range []integrations.NewPullRequest{
		{Owner: "octo", Repo: "widgets", Title: "x", Head: "bad..name", Base: "main"},
		{Owner: "octo", Repo: "widgets", Title: "x", Head: "ok", Base: "bad base"},
		{Owner: "..", Repo: "widgets", Title: "x", Head: "ok", Base: "main"},
	} {
		_, _, err := opener.OpenPullRequest(h.ctx, bad)
		assert.ErrorIs(t, err, integrations.ErrInvalid, "%+v", bad)
	}
	assert.Equal(t, before, h.f.RequestCount(), "bad input is refused before any request")
}

func caseListPullRequests(t *testing.T, h *rig) {
	lister := h.p.(integrations.PullRequestLister)
	a := h.f.SeedPull(GitHubRepo, "f1", "main", shaA, "one")
	b := h.f.SeedPull(GitHubRepo, "f2", "main", shaB, "two")
	h.f.SeedBranch(GitHubRepo, "release", GitHubMainSHA)
	c := h.f.SeedPull(GitHubRepo, "f3", "release", shaC, "three")
	closed := h.f.SeedPull(GitHubRepo, "f4", "main", shaA, "four")
	h.f.ClosePull(GitHubRepo, closed)
	merged := h.f.SeedPull(GitHubRepo, "f5", "main", shaB, "five")
	h.f.MergePull(GitHubRepo, merged)

	numbers := func(q integrations.PullRequestQuery) []int {
		t.Helper()
		q.Owner, q.Repo = "octo", "widgets"
		got, err := lister.ListPullRequests(h.ctx, q)
		require.NoError(t, err)
		var out []int
		for _, pr := range got {
			out = append(out, pr.Number)
		}
		return out
	}
	assert.Equal(t, []int{c, b, a}, numbers(integrations.PullRequestQuery{}), "open by default, newest first")
	assert.Equal(t, []int{merged, closed}, numbers(integrations.PullRequestQuery{State: "closed"}))
	assert.Equal(t, []int{merged, closed, c, b, a}, numbers(integrations.PullRequestQuery{State: "all"}))
	assert.Equal(t, []int{b}, numbers(integrations.PullRequestQuery{Head: "f2"}))
	assert.Equal(t, []int{b}, numbers(integrations.PullRequestQuery{Head: "octo:f2"}))
	assert.Empty(t, numbers(integrations.PullRequestQuery{Head: "someone-else:f2"}), "a fork's branch is not ours")
	assert.Equal(t, []int{c}, numbers(integrations.PullRequestQuery{Base: "release"}))

	got, err := lister.ListPullRequests(h.ctx, integrations.PullRequestQuery{Owner: "octo", Repo: "widgets", State: "all"})
	require.NoError(t, err)
	byNumber := map[int]integrations.PullRequest{}
	for _, pr := range got {
		byNumber[pr.Number] = pr
	}
	assert.True(t, byNumber[merged].Merged)
	assert.Equal(t, "closed", byNumber[merged].State)
	assert.False(t, byNumber[closed].Merged)
	assert.Equal(t, shaC, byNumber[c].HeadSHA)
	assert.Equal(t, "release", byNumber[c].Base)
	assert.Equal(t, "alice", byNumber[c].Author)
	assert.False(t, byNumber[c].UpdatedAt.IsZero())
	assert.Nil(t, byNumber[c].Mergeable, "listings do not carry mergeability")

	before := h.f.RequestCount()
	_, err = lister.ListPullRequests(h.ctx, integrations.PullRequestQuery{Owner: "octo", Repo: "widgets", State: "merged"})
	assert.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Equal(t, before, h.f.RequestCount())
}

func caseListPullRequestFiles(t *testing.T, h *rig) {
	n := h.f.SeedPull(GitHubRepo, "docs", "main", shaA, "docs")
	h.f.SetPullFiles(GitHubRepo, n, "docs/capabilities/polling.md", "service/poll.go")
	got, err := h.p.(integrations.PullRequestFileLister).ListPullRequestFiles(h.ctx, "octo", "widgets", n)
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/capabilities/polling.md", "service/poll.go"}, got)
}

func caseListReviews(t *testing.T, h *rig) {
	n := h.f.SeedPull(GitHubRepo, "f", "main", shaA, "f")
	first := h.f.AddReview(GitHubRepo, n, "bob", "MEMBER", "CHANGES_REQUESTED", "Please rename.")
	second := h.f.AddReview(GitHubRepo, n, "carol", "NONE", "APPROVED", "")
	got, err := h.p.(integrations.ReviewLister).ListReviews(h.ctx, "octo", "widgets", n)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []any{first.ID, "bob", "MEMBER", "CHANGES_REQUESTED", "Please rename.", first.URL, shaA},
		[]any{got[0].ID, got[0].Author, got[0].AuthorAssociation, got[0].State, got[0].Body, got[0].URL, got[0].CommitID})
	assert.Equal(t, []any{second.ID, "carol", "NONE", "APPROVED"}, []any{got[1].ID, got[1].Author, got[1].AuthorAssociation, got[1].State})
	assert.False(t, got[0].SubmittedAt.IsZero())
	assert.Equal(t, "bob", got[0].AsComment().Author, "a review reads as a comment by its author")
}

func caseListReviewComments(t *testing.T, h *rig) {
	n := h.f.SeedPull(GitHubRepo, "f", "main", shaA, "f")
	th := h.f.AddReviewThread(GitHubRepo, n, "bob", "service/poll.go", 42, "Why a loop here?")
	reply := h.f.ReplyToThread(GitHubRepo, n, th.CommentID, "alice", "Fixed.")
	old := h.f.AddReviewThread(GitHubRepo, n, "carol", "README.md", 7, "Typo.")
	h.f.OutdateThread(GitHubRepo, n, old.CommentID)
	got, err := h.p.(integrations.ReviewCommentLister).ListReviewComments(h.ctx, "octo", "widgets", n)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, []any{th.CommentID, int64(0), "bob", "service/poll.go", 42, "Why a loop here?", th.URL, shaA},
		[]any{got[0].ID, got[0].InReplyTo, got[0].Author, got[0].Path, got[0].Line, got[0].Body, got[0].URL, got[0].CommitID})
	assert.Equal(t, []any{reply, th.CommentID, "alice"}, []any{got[1].ID, got[1].InReplyTo, got[1].Author})
	assert.Equal(t, 7, got[2].Line, "an outdated comment keeps its original line")
	assert.Equal(t, "bob", got[0].AsComment().Author)
}

func caseListReviewThreads(t *testing.T, h *rig) {
	n := h.f.SeedPull(GitHubRepo, "f", "main", shaA, "f")
	done := h.f.AddReviewThread(GitHubRepo, n, "bob", "a.go", 1, "done?")
	h.f.ResolveThread(GitHubRepo, n, done.CommentID, true)
	open := h.f.AddReviewThread(GitHubRepo, n, "carol", "b.go", 20, "open")
	reply := h.f.ReplyToThread(GitHubRepo, n, open.CommentID, "erin", "and the empty case")
	stale := h.f.AddReviewThread(GitHubRepo, n, "dave", "c.go", 3, "stale")
	h.f.OutdateThread(GitHubRepo, n, stale.CommentID)
	got, err := h.p.(integrations.ReviewThreadLister).ListReviewThreads(h.ctx, "octo", "widgets", n)
	require.NoError(t, err)
	require.Len(t, got, 3)
	bare := func(th integrations.ReviewThread) integrations.ReviewThread { th.Comments = nil; return th }
	assert.Equal(t, integrations.ReviewThread{ID: done.ID, Resolved: true, Path: "a.go", Line: 1, URL: done.URL, Author: "bob"}, bare(got[0]))
	assert.Equal(t, integrations.ReviewThread{ID: open.ID, Path: "b.go", Line: 20, URL: open.URL, Author: "carol"}, bare(got[1]))
	assert.Equal(t, integrations.ReviewThread{ID: stale.ID, Outdated: true, Path: "c.go", Line: 3, URL: stale.URL, Author: "dave"}, bare(got[2]))
	assert.Equal(t, []integrations.ReviewThread{got[1], got[2]}, integrations.Unresolved(got))
	require.Len(t, got[1].Comments, 2, "a thread carries its comments, the first and the replies")
	first, second := got[1].Comments[0], got[1].Comments[1]
	assert.Equal(t, []any{open.CommentID, "carol", "open", open.URL}, []any{first.ID, first.Author, first.Body, first.URL})
	assert.Equal(t, []any{reply, "erin", "and the empty case"}, []any{second.ID, second.Author, second.Body})
	assert.False(t, second.CreatedAt.IsZero(), "each comment says when it was written")
	assert.True(t, second.CreatedAt.After(first.CreatedAt))
	assert.Less(t, h.f.GraphQLQuotaRemaining(), 5000, "threads are read over GraphQL")
}

func caseLinkTicket(t *testing.T, h *rig) {
	linker := h.p.(integrations.TicketLinker)
	pr := integrations.PullRequest{Owner: "octo", Repo: "widgets", Number: 7, Title: "Implement PROJ-1", State: "open", URL: "https://github.com/octo/widgets/pull/7"}
	require.NoError(t, linker.LinkTicket(h.ctx, h.ref(), pr))
	links := h.f.RemoteLinks(h.ref().Key)
	require.Len(t, links, 1)
	assert.Equal(t, pr.URL, links[0].URL)
	assert.Equal(t, "Pull request octo/widgets#7: Implement PROJ-1", links[0].Title)
	assert.False(t, links[0].Resolved)

	pr.State, pr.Title = "closed", "Implement PROJ-1 (renamed)"
	require.NoError(t, linker.LinkTicket(h.ctx, h.ref(), pr))
	links = h.f.RemoteLinks(h.ref().Key)
	require.Len(t, links, 1, "linking again updates the one link")
	assert.Equal(t, "Pull request octo/widgets#7: Implement PROJ-1 (renamed)", links[0].Title)
	assert.True(t, links[0].Resolved, "a closed pull request shows as resolved")

	before := h.f.RequestCount()
	assert.ErrorIs(t, linker.LinkTicket(h.ctx, h.ref(), integrations.PullRequest{Number: 7, URL: "javascript:alert(1)"}), integrations.ErrInvalid)
	assert.ErrorIs(t, linker.LinkTicket(h.ctx, h.ref(), integrations.PullRequest{URL: pr.URL}), integrations.ErrInvalid)
	assert.Equal(t, before, h.f.RequestCount(), "a pull request without a web URL and number is refused before any request")
}
