package integrations

import (
	"context"
	"sort"
	"time"
)

// Pull-request operations. Each is implemented through the interface named
// beside it, and a provider declares it in Operations exactly when it
// implements that interface.
const (
	// OpOpenPullRequest: PullRequestOpener.
	OpOpenPullRequest Op = "open-pull-request"
	// OpListPullRequests: PullRequestLister.
	OpListPullRequests Op = "list-pull-requests"
	// OpListPullRequestFiles: PullRequestFileLister.
	OpListPullRequestFiles Op = "list-pull-request-files"
	// OpListReviews: ReviewLister.
	OpListReviews Op = "list-reviews"
	// OpListReviewComments: ReviewCommentLister.
	OpListReviewComments Op = "list-review-comments"
	// OpReadChecks: CheckReader.
	OpReadChecks Op = "read-checks"
	// OpListReviewThreads: ReviewThreadLister.
	OpListReviewThreads Op = "list-review-threads"
	// OpReadCheckDetails: CheckDetailReader.
	OpReadCheckDetails Op = "read-check-details"
	// OpLinkTicket: TicketLinker.
	OpLinkTicket Op = "link-ticket"
)

// PullRequestQuery selects pull requests of one repository.
type PullRequestQuery struct {
	Owner, Repo string
	// State is open (the default), closed or all.
	State string
	// Head is a branch name, or OWNER:BRANCH for a fork; "" matches any.
	Head string
	// Base is the target branch; "" matches any.
	Base string
}

// Review is one submitted pull request review.
type Review struct {
	ID                int64
	Author            string
	AuthorAssociation string
	// State is APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING.
	State       string
	Body        string
	URL         string
	CommitID    string
	SubmittedAt time.Time
}

// ReviewComment is one inline comment on a pull request's diff.
type ReviewComment struct {
	ID                int64
	ReviewID          int64
	InReplyTo         int64
	Author            string
	AuthorAssociation string
	Body              string
	Path              string
	// Line is the line in the current diff, or the original line when the
	// comment is outdated (0 for a file-level comment).
	Line      int
	CommitID  string
	URL       string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AsComment returns the review comment in the shape the gate readers take.
func (c ReviewComment) AsComment() Comment {
	return Comment{ID: c.ID, Author: c.Author, AuthorAssociation: c.AuthorAssociation, Body: c.Body, URL: c.URL, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, Kind: CommentReviewComment}
}

// AsComment returns the review's body in the shape the gate readers take.
func (r Review) AsComment() Comment {
	return Comment{ID: r.ID, Author: r.Author, AuthorAssociation: r.AuthorAssociation, Body: r.Body, URL: r.URL, CreatedAt: r.SubmittedAt, UpdatedAt: r.SubmittedAt, Kind: CommentReview}
}

// ReviewThread is one conversation on a pull request's diff.
type ReviewThread struct {
	ID       string
	Resolved bool
	// Outdated is true when the diff line the thread sits on has changed.
	Outdated bool
	Path     string
	// Line is the thread's line, or its original line when outdated (0
	// when GitHub gives neither: a file-level thread).
	Line int
	// URL and Author are those of the thread's first comment.
	URL    string
	Author string
	// Comments are the thread's comments, oldest first (at most the
	// first 30 GitHub gives).
	Comments []ThreadComment
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	ID        int64
	Author    string
	Body      string
	URL       string
	CreatedAt time.Time
}

// Unresolved returns the threads not yet resolved, in order.
func Unresolved(threads []ReviewThread) []ReviewThread {
	var out []ReviewThread
	for _, t := range threads {
		if !t.Resolved {
			out = append(out, t)
		}
	}
	return out
}

// CheckState is one check's state as the loop reads it.
type CheckState string

// The check states.
const (
	CheckPassed  CheckState = "passed"
	CheckPending CheckState = "pending"
	CheckFailed  CheckState = "failed"
)

// Check is one check run or commit status on a commit.
type Check struct {
	// Name is the check run's name or the status's context.
	Name string
	// Source is "check-run" or "status".
	Source string
	State  CheckState
	// Detail is GitHub's own word: a check run's conclusion (or status
	// while it runs), a status's state.
	Detail string
	URL    string
	// ID is the check run's id (0 for a commit status); App is the slug
	// of the app that reported it ("github-actions" for a workflow job,
	// whose job id is the check run's id).
	ID  int64
	App string
	// Title, Summary and Text are a check run's output as the listing
	// gives it (a status has only its description, in Summary), and
	// Annotations how many annotations the run carries.
	Title, Summary, Text string
	Annotations          int
}

// Check sources.
const (
	SourceCheckRun = "check-run"
	SourceStatus   = "status"
)

// ChecksVerdict sums up every check of a commit.
type ChecksVerdict string

// The verdicts: green when every check passed; failing when any failed;
// pending otherwise, including when no check has reported yet (a commit
// just pushed has none, and "none yet" must never read as green).
const (
	ChecksGreen   ChecksVerdict = "green"
	ChecksPending ChecksVerdict = "pending"
	ChecksFailing ChecksVerdict = "failing"
)

// Checks is every check of one commit and their verdict.
type Checks struct {
	SHA     string
	Verdict ChecksVerdict
	// All holds every check, ordered by name then source.
	All []Check
}

// SummarizeChecks orders checks and computes their verdict.
func SummarizeChecks(sha string, checks []Check) Checks {
	all := append([]Check(nil), checks...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Name != all[j].Name {
			return all[i].Name < all[j].Name
		}
		return all[i].Source < all[j].Source
	})
	verdict := ChecksGreen
	if len(all) == 0 {
		verdict = ChecksPending
	}
	for _, c := range all {
		switch c.State {
		case CheckPassed:
		case CheckPending:
			if verdict == ChecksGreen {
				verdict = ChecksPending
			}
		default:
			verdict = ChecksFailing
		}
	}
	return Checks{SHA: sha, Verdict: verdict, All: all}
}

// InState returns the checks in state, in order.
func (c Checks) InState(state CheckState) []Check {
	var out []Check
	for _, ch := range c.All {
		if ch.State == state {
			out = append(out, ch)
		}
	}
	return out
}

// PullRequestOpener is implemented by providers that host pull requests
// (OpOpenPullRequest).
type PullRequestOpener interface {
	// OpenPullRequest returns the open pull request from in.Head into
	// in.Base, opening it when there is none; created says which. An open
	// pull request from the same head into another base is an ErrInvalid
	// error, never adopted. An adopted pull request keeps its title and
	// body.
	OpenPullRequest(ctx context.Context, in NewPullRequest) (pr PullRequest, created bool, err error)
}

// PullRequestLister is implemented by providers that list pull requests
// (OpListPullRequests).
type PullRequestLister interface {
	// ListPullRequests returns every pull request q selects, newest first.
	// Listings leave Mergeable nil and MergeableState empty: GitHub
	// computes them only for GetPullRequest.
	ListPullRequests(ctx context.Context, q PullRequestQuery) ([]PullRequest, error)
}

// PullRequestFileLister is implemented by providers that list the files a
// pull request changes (OpListPullRequestFiles).
type PullRequestFileLister interface {
	// ListPullRequestFiles returns the paths the pull request adds, changes,
	// renames (the new path) or removes.
	ListPullRequestFiles(ctx context.Context, owner, repo string, number int) ([]string, error)
}

// ReviewLister is implemented by providers that read pull request reviews
// (OpListReviews).
type ReviewLister interface {
	// ListReviews returns every review of the pull request, oldest first.
	ListReviews(ctx context.Context, owner, repo string, number int) ([]Review, error)
}

// ReviewCommentLister is implemented by providers that read inline review
// comments (OpListReviewComments).
type ReviewCommentLister interface {
	// ListReviewComments returns every inline comment of the pull request,
	// oldest first.
	ListReviewComments(ctx context.Context, owner, repo string, number int) ([]ReviewComment, error)
}

// CheckReader is implemented by providers that read CI results
// (OpReadChecks).
type CheckReader interface {
	// ReadChecks returns every check run and commit status of sha (a full
	// commit SHA) with their verdict.
	ReadChecks(ctx context.Context, owner, repo, sha string) (Checks, error)
}

// ReviewThreadLister is implemented by providers that read review threads
// with their resolution (OpListReviewThreads).
type ReviewThreadLister interface {
	// ListReviewThreads returns every review thread of the pull request.
	ListReviewThreads(ctx context.Context, owner, repo string, number int) ([]ReviewThread, error)
}

// TicketLinker is implemented by ticket systems that record a pull request
// on the ticket itself (OpLinkTicket).
type TicketLinker interface {
	// LinkTicket records pr on ticket. Repeating it updates the same link;
	// it never adds a second one.
	LinkTicket(ctx context.Context, ticket Ref, pr PullRequest) error
}
