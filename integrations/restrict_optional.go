package integrations

import "context"

// optional runs call on the provider's implementation of I once op is
// allowed; a provider without I answers ErrUnsupported.
func optional[I, T any](r *Restricted, op Op, call func(I) (T, error)) (T, error) {
	var zero T
	if err := r.use(op); err != nil {
		return zero, err
	}
	impl, ok := r.p.(I)
	if !ok {
		return zero, r.unsupported(op)
	}
	return call(impl)
}

// none adapts an error-only call to optional.
func none(err error) (struct{}, error) { return struct{}{}, err }

// ListOpenIssues implements IssueLister.
func (r *Restricted) ListOpenIssues(ctx context.Context, container, label string) ([]Issue, error) {
	return optional(r, OpListOpenIssues, func(l IssueLister) ([]Issue, error) { return l.ListOpenIssues(ctx, container, label) })
}

// EnsureLabels implements LabelEnsurer.
func (r *Restricted) EnsureLabels(ctx context.Context, owner, repo string, labels []LabelSpec) error {
	_, err := optional(r, OpEnsureLabels, func(e LabelEnsurer) (struct{}, error) { return none(e.EnsureLabels(ctx, owner, repo, labels)) })
	return err
}

// LinkPullRequest implements PullRequestLinker.
func (r *Restricted) LinkPullRequest(ctx context.Context, issue Ref, owner, repo string, number int) error {
	_, err := optional(r, OpLinkPullRequest, func(l PullRequestLinker) (struct{}, error) {
		return none(l.LinkPullRequest(ctx, issue, owner, repo, number))
	})
	return err
}

// OpenPullRequest implements PullRequestOpener.
func (r *Restricted) OpenPullRequest(ctx context.Context, in NewPullRequest) (PullRequest, bool, error) {
	type opened struct {
		pr      PullRequest
		created bool
	}
	got, err := optional(r, OpOpenPullRequest, func(o PullRequestOpener) (opened, error) {
		pr, created, err := o.OpenPullRequest(ctx, in)
		return opened{pr, created}, err
	})
	return got.pr, got.created, err
}

// ListPullRequests implements PullRequestLister.
func (r *Restricted) ListPullRequests(ctx context.Context, q PullRequestQuery) ([]PullRequest, error) {
	return optional(r, OpListPullRequests, func(l PullRequestLister) ([]PullRequest, error) { return l.ListPullRequests(ctx, q) })
}

// ListPullRequestFiles implements PullRequestFileLister.
func (r *Restricted) ListPullRequestFiles(ctx context.Context, owner, repo string, number int) ([]string, error) {
	return optional(r, OpListPullRequestFiles, func(l PullRequestFileLister) ([]string, error) {
		return l.ListPullRequestFiles(ctx, owner, repo, number)
	})
}

// ListReviews implements ReviewLister.
func (r *Restricted) ListReviews(ctx context.Context, owner, repo string, number int) ([]Review, error) {
	return optional(r, OpListReviews, func(l ReviewLister) ([]Review, error) { return l.ListReviews(ctx, owner, repo, number) })
}

// ListReviewComments implements ReviewCommentLister.
func (r *Restricted) ListReviewComments(ctx context.Context, owner, repo string, number int) ([]ReviewComment, error) {
	return optional(r, OpListReviewComments, func(l ReviewCommentLister) ([]ReviewComment, error) {
		return l.ListReviewComments(ctx, owner, repo, number)
	})
}

// ReadChecks implements CheckReader.
func (r *Restricted) ReadChecks(ctx context.Context, owner, repo, sha string) (Checks, error) {
	return optional(r, OpReadChecks, func(c CheckReader) (Checks, error) { return c.ReadChecks(ctx, owner, repo, sha) })
}

// ListReviewThreads implements ReviewThreadLister.
func (r *Restricted) ListReviewThreads(ctx context.Context, owner, repo string, number int) ([]ReviewThread, error) {
	return optional(r, OpListReviewThreads, func(l ReviewThreadLister) ([]ReviewThread, error) {
		return l.ListReviewThreads(ctx, owner, repo, number)
	})
}

// ReadCheckDetails implements CheckDetailReader.
func (r *Restricted) ReadCheckDetails(ctx context.Context, owner, repo string, c Check) (CheckDetail, error) {
	return optional(r, OpReadCheckDetails, func(d CheckDetailReader) (CheckDetail, error) { return d.ReadCheckDetails(ctx, owner, repo, c) })
}

// LinkTicket implements TicketLinker.
func (r *Restricted) LinkTicket(ctx context.Context, ticket Ref, pr PullRequest) error {
	_, err := optional(r, OpLinkTicket, func(l TicketLinker) (struct{}, error) { return none(l.LinkTicket(ctx, ticket, pr)) })
	return err
}

// ReadRelations implements RelationReader.
func (r *Restricted) ReadRelations(ctx context.Context, ref Ref) (Relations, error) {
	return optional(r, OpReadRelations, func(rr RelationReader) (Relations, error) { return rr.ReadRelations(ctx, ref) })
}

// Every interface a hook may reach through a Restricted provider.
var (
	_ Provider              = (*Restricted)(nil)
	_ IssueLister           = (*Restricted)(nil)
	_ LabelEnsurer          = (*Restricted)(nil)
	_ PullRequestLinker     = (*Restricted)(nil)
	_ PullRequestOpener     = (*Restricted)(nil)
	_ PullRequestLister     = (*Restricted)(nil)
	_ PullRequestFileLister = (*Restricted)(nil)
	_ ReviewLister          = (*Restricted)(nil)
	_ ReviewCommentLister   = (*Restricted)(nil)
	_ CheckReader           = (*Restricted)(nil)
	_ ReviewThreadLister    = (*Restricted)(nil)
	_ CheckDetailReader     = (*Restricted)(nil)
	_ TicketLinker          = (*Restricted)(nil)
	_ RelationReader        = (*Restricted)(nil)
)
