// Package integrations defines the provider interface through which every side
// effect of the loop reaches a ticket system (GitHub, Jira) or a channel
// (Slack). Providers live in subpackages; each declares the operations it
// implements so the runtime can refuse a configuration that cannot work.
package integrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Op names one operation a provider may implement.
type Op string

// The operations the loop uses.
const (
	OpGetIssue          Op = "get-issue"
	OpCreateIssue       Op = "create-issue"
	OpEditIssue         Op = "edit-issue"
	OpListComments      Op = "list-comments"
	OpCreateComment     Op = "create-comment"
	OpEditComment       Op = "edit-comment"
	OpAddLabels         Op = "add-labels"
	OpRemoveLabel       Op = "remove-label"
	OpEnsureLabels      Op = "ensure-labels"
	OpAddReaction       Op = "add-reaction"
	OpCreateBranch      Op = "create-branch"
	OpCreatePullRequest Op = "create-pull-request"
	OpGetPullRequest    Op = "get-pull-request"
	OpReadFile          Op = "read-file"
	OpListProjects      Op = "list-projects"
)

// ErrUnsupported is returned by a provider for an operation it does not
// implement.
var ErrUnsupported = errors.New("operation not supported by this provider")

// ErrNotFound is returned when the ticket, comment or file does not exist.
var ErrNotFound = errors.New("not found")

// SelfMarker is the hidden marker carried by every comment the loop posts.
// Comments containing it are never read as human input.
const SelfMarker = "<!-- the-loop:agent-comment -->"

// SelfAttribution is the visible line placed above the marker.
const SelfAttribution = "🤖 _the-loop, autonomous comment_"

// MarkSelfAuthored appends the attribution and marker to body (idempotent).
func MarkSelfAuthored(body string) string {
	if strings.Contains(body, SelfMarker) {
		return body
	}
	return strings.TrimRight(body, " \t\r\n") + "\n\n" + SelfAttribution + "\n" + SelfMarker + "\n"
}

// IsSelfAuthored reports whether body carries the loop's own marker.
func IsSelfAuthored(body string) bool {
	return body != "" && strings.Contains(body, SelfMarker)
}

// Ref identifies a ticket: a GitHub issue or pull request (Owner, Repo,
// Number) or a Jira issue (Key).
type Ref struct {
	System string // "github" or "jira"
	Host   string // GitHub Enterprise host; "" for github.com
	Owner  string
	Repo   string
	Number int
	Key    string // Jira issue key, e.g. PROJ-12
}

// String renders the ref as github:owner/repo#n or jira:KEY-1.
func (r Ref) String() string {
	switch r.System {
	case "jira":
		return "jira:" + r.Key
	default:
		host := ""
		if r.Host != "" {
			host = r.Host + "/"
		}
		return fmt.Sprintf("github:%s%s/%s#%d", host, r.Owner, r.Repo, r.Number)
	}
}

// Issue is a ticket as the loop sees it.
type Issue struct {
	Ref    Ref
	Number int
	Key    string
	Title  string
	Body   string
	State  string
	Author string
	Labels []string
	URL    string
	// UpdatedAt is when the ticket last changed (a comment, a label, an
	// edit); zero when the system did not say.
	UpdatedAt time.Time
	// Comments is the number of its conversation comments, when
	// CommentsKnown (GitHub's listings say; Jira's search does not). The
	// poller lists the comments of an issue again when this count or
	// UpdatedAt moved, and always when the count is unknown.
	Comments      int
	CommentsKnown bool
	// Pull marks a pull request among the issues of a listing that holds
	// both (GitHub's issue listing).
	Pull bool
}

// NewIssue is the input of CreateIssue.
type NewIssue struct {
	Repo      string // OWNER/REPO (github)
	Project   string // KEY (jira)
	Title     string
	Body      string
	Labels    []string
	IssueType string // jira
	Parent    string // jira parent key (epic)
}

// Comment is one ticket comment with the metadata authorization relies on.
// Author always comes from the API, never from the body text.
type Comment struct {
	ID                int64
	Author            string
	AuthorAssociation string
	Body              string
	URL               string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// Kind says which list of its system the comment is from: "" for a
	// ticket's (or a pull request's) conversation, CommentReview for a
	// submitted review, CommentReviewComment for a comment on a diff. Ids
	// are compared only within one kind of one host.
	Kind string
}

// The kinds of comment whose ids are not a conversation comment's.
const (
	CommentReview        = "review"
	CommentReviewComment = "review-comment"
)

// PullRequest is the subset of a pull request the loop uses.
type PullRequest struct {
	Number int
	URL    string
	Head   string
	Base   string
	Draft  bool
	// State is open or closed (a merged pull request is closed and Merged).
	State string
	// Owner and Repo name the repository the pull request is in.
	Owner, Repo string
	Title       string
	Body        string
	Author      string
	// HeadSHA is the commit the head branch points at.
	HeadSHA string
	Merged  bool
	// MergedBy is the account that merged it ("" when not merged, and in
	// listings).
	MergedBy string
	// Mergeable is nil while GitHub has not computed it (and in listings).
	Mergeable *bool
	// MergeableState is GitHub's word: clean, dirty, blocked, behind,
	// unstable, draft, unknown ("" in listings).
	MergeableState string
	UpdatedAt      time.Time
}

// NewPullRequest is the input of CreatePullRequest.
type NewPullRequest struct {
	Owner, Repo string
	Title, Body string
	Head, Base  string
	Draft       bool
}

// Provider is a ticket system. Operations a provider does not implement return
// ErrUnsupported and are absent from Operations.
type Provider interface {
	// Name is the system name ("github", "jira").
	Name() string
	// Operations lists what this provider implements.
	Operations() []Op

	GetIssue(ctx context.Context, ref Ref) (Issue, error)
	CreateIssue(ctx context.Context, in NewIssue) (Issue, error)
	EditIssueBody(ctx context.Context, ref Ref, body string) error
	ListComments(ctx context.Context, ref Ref) ([]Comment, error)
	CreateComment(ctx context.Context, ref Ref, body string) (Comment, error)
	EditComment(ctx context.Context, ref Ref, id int64, body string) (Comment, error)
	AddLabels(ctx context.Context, ref Ref, labels []string) error
	RemoveLabel(ctx context.Context, ref Ref, label string) error
	AddReaction(ctx context.Context, ref Ref, commentID int64, reaction string) error
	CreateBranch(ctx context.Context, owner, repo, branch, fromSHA string) error
	CreatePullRequest(ctx context.Context, in NewPullRequest) (PullRequest, error)
	GetPullRequest(ctx context.Context, owner, repo string, number int) (PullRequest, error)
	ReadFile(ctx context.Context, owner, repo, path, ref string) ([]byte, error)
	ListProjects(ctx context.Context) ([]string, error)
}

// Notifier delivers a notification to a channel (Slack).
type Notifier interface {
	Notify(ctx context.Context, event, text string) error
}

// Supports reports whether p implements op.
func Supports(p Provider, op Op) bool {
	if p == nil {
		return false
	}
	for _, o := range p.Operations() {
		if o == op {
			return true
		}
	}
	return false
}

// MissingOperationError says a configured provider cannot perform an operation
// a shipped hook needs.
type MissingOperationError struct {
	Op       Op
	Provider string
	Needer   string // e.g. "hook request-review on node requirements-approval"
}

func (e *MissingOperationError) Error() string {
	return fmt.Sprintf("provider %s does not implement %s, which %s needs; configure a provider that does (integrations.*), or remove the need (a graph without that hook)", e.Provider, e.Op, e.Needer)
}
