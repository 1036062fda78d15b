package integrations

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrUndeclared is returned by a Restricted provider for an operation
// outside its allowance.
var ErrUndeclared = errors.New("operation not declared")

// Restricted is a provider limited to a set of operations: a call to any
// other operation returns an error wrapping ErrUndeclared without reaching
// the provider, and is remembered. It also implements every optional
// operation interface (IssueLister, PullRequestLister, ...), each checked
// the same way and answering ErrUnsupported when the provider underneath
// does not implement it. Every call is recorded, allowed or not.
type Restricted struct {
	p       Provider
	who     string
	allowed map[Op]bool

	mu         sync.Mutex
	calls      []Op
	undeclared []Op
}

// Restrict returns p limited to ops; who names the caller in errors (e.g.
// "hook request-review"). It returns nil when p is nil, so a caller's "no
// tracker" check keeps working.
func Restrict(p Provider, who string, ops []Op) *Restricted {
	if p == nil {
		return nil
	}
	r := &Restricted{p: p, who: who, allowed: map[Op]bool{}}
	for _, op := range ops {
		r.allowed[op] = true
	}
	return r
}

// Calls lists every operation attempted, in order, repeats removed.
func (r *Restricted) Calls() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Undeclared lists the attempted operations outside the allowance, in
// order, repeats removed.
func (r *Restricted) Undeclared() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.undeclared)
}

// use records op and refuses it when it is not allowed.
func (r *Restricted) use(op Op) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.calls, op) {
		r.calls = append(r.calls, op)
	}
	if r.allowed[op] {
		return nil
	}
	if !slices.Contains(r.undeclared, op) {
		r.undeclared = append(r.undeclared, op)
	}
	return fmt.Errorf("%s called %s, which it does not declare: %w", r.who, op, ErrUndeclared)
}

func (r *Restricted) unsupported(op Op) error {
	return fmt.Errorf("%s %s: %w", r.p.Name(), op, ErrUnsupported)
}

// Name is the provider's name.
func (r *Restricted) Name() string { return r.p.Name() }

// Operations lists the provider's operations that are also allowed.
func (r *Restricted) Operations() []Op {
	var out []Op
	for _, op := range r.p.Operations() {
		if r.allowed[op] {
			out = append(out, op)
		}
	}
	return out
}

// GetIssue implements Provider.
func (r *Restricted) GetIssue(ctx context.Context, ref Ref) (Issue, error) {
	if err := r.use(OpGetIssue); err != nil {
		return Issue{}, err
	}
	return r.p.GetIssue(ctx, ref)
}

// CreateIssue implements Provider.
func (r *Restricted) CreateIssue(ctx context.Context, in NewIssue) (Issue, error) {
	if err := r.use(OpCreateIssue); err != nil {
		return Issue{}, err
	}
	return r.p.CreateIssue(ctx, in)
}

// EditIssueBody implements Provider.
func (r *Restricted) EditIssueBody(ctx context.Context, ref Ref, body string) error {
	if err := r.use(OpEditIssue); err != nil {
		return err
	}
	return r.p.EditIssueBody(ctx, ref, body)
}

// ListComments implements Provider.
func (r *Restricted) ListComments(ctx context.Context, ref Ref) ([]Comment, error) {
	if err := r.use(OpListComments); err != nil {
		return nil, err
	}
	return r.p.ListComments(ctx, ref)
}

// CreateComment implements Provider.
func (r *Restricted) CreateComment(ctx context.Context, ref Ref, body string) (Comment, error) {
	if err := r.use(OpCreateComment); err != nil {
		return Comment{}, err
	}
	return r.p.CreateComment(ctx, ref, body)
}

// EditComment implements Provider.
func (r *Restricted) EditComment(ctx context.Context, ref Ref, id int64, body string) (Comment, error) {
	if err := r.use(OpEditComment); err != nil {
		return Comment{}, err
	}
	return r.p.EditComment(ctx, ref, id, body)
}

// AddLabels implements Provider.
func (r *Restricted) AddLabels(ctx context.Context, ref Ref, labels []string) error {
	if err := r.use(OpAddLabels); err != nil {
		return err
	}
	return r.p.AddLabels(ctx, ref, labels)
}

// RemoveLabel implements Provider.
func (r *Restricted) RemoveLabel(ctx context.Context, ref Ref, label string) error {
	if err := r.use(OpRemoveLabel); err != nil {
		return err
	}
	return r.p.RemoveLabel(ctx, ref, label)
}

// AddReaction implements Provider.
func (r *Restricted) AddReaction(ctx context.Context, ref Ref, commentID int64, reaction string) error {
	if err := r.use(OpAddReaction); err != nil {
		return err
	}
	return r.p.AddReaction(ctx, ref, commentID, reaction)
}

// CreateBranch implements Provider.
func (r *Restricted) CreateBranch(ctx context.Context, owner, repo, branch, fromSHA string) error {
	if err := r.use(OpCreateBranch); err != nil {
		return err
	}
	return r.p.CreateBranch(ctx, owner, repo, branch, fromSHA)
}

// CreatePullRequest implements Provider.
func (r *Restricted) CreatePullRequest(ctx context.Context, in NewPullRequest) (PullRequest, error) {
	if err := r.use(OpCreatePullRequest); err != nil {
		return PullRequest{}, err
	}
	return r.p.CreatePullRequest(ctx, in)
}

// GetPullRequest implements Provider.
func (r *Restricted) GetPullRequest(ctx context.Context, owner, repo string, number int) (PullRequest, error) {
	if err := r.use(OpGetPullRequest); err != nil {
		return PullRequest{}, err
	}
	return r.p.GetPullRequest(ctx, owner, repo, number)
}

// ReadFile implements Provider.
func (r *Restricted) ReadFile(ctx context.Context, owner, repo, path, ref string) ([]byte, error) {
	if err := r.use(OpReadFile); err != nil {
		return nil, err
	}
	return r.p.ReadFile(ctx, owner, repo, path, ref)
}

// ListProjects implements Provider.
func (r *Restricted) ListProjects(ctx context.Context) ([]string, error) {
	if err := r.use(OpListProjects); err != nil {
		return nil, err
	}
	return r.p.ListProjects(ctx)
}
