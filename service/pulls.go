package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
)

// prLoop is the inner loop every pull request of a work item walks.
const prLoop = "pdlc-pr-loop"

// DefaultBase is the branch a pull request targets when the request names
// none.
const DefaultBase = "main"

// PRCreateRequest opens (or adopts) a work item's pull request.
type PRCreateRequest struct {
	ItemRequest
	// Repository is OWNER/REPO the pull request is opened in (default: the
	// origin repository).
	Repository string `json:"repository"`
	// Base is the branch it merges into (default main).
	Base string `json:"base"`
	// Draft opens it as a draft.
	Draft bool `json:"draft"`
	// Actor is who opens it, set by the surface; never a tool argument.
	Actor string `json:"-"`
}

// PRCreateResult is the pull request and what the loop recorded.
type PRCreateResult struct {
	WorkItem string `json:"workItem"`
	// Created is false when an open pull request from the item's branch
	// was adopted.
	Created     bool                    `json:"created"`
	PullRequest runtime.PullRequestLink `json:"pullRequest"`
	// Role says what the pull request is for: code (it walks an inner
	// loop), discussion (the outer loop's artifacts are iterated on it) or
	// spec (it only lands the locked spec chain).
	Role []string `json:"role"`
	// InnerLoop is where its pdlc-pr-loop stands ("" when it walks none).
	InnerLoopNode string `json:"innerLoopNode,omitempty"`
	// Asked is true when a launched session's server, which holds no code
	// host integration, recorded the request for the poller to open on
	// its next cycle; PullRequest then names only its repository.
	Asked    bool     `json:"asked,omitempty"`
	Warnings []string `json:"-"`
}

// PRCreate opens the pull request of work item WorkItem in Repository from
// the item's branch — the branch its working tree has checked out, else
// workspace.BranchFor (the-loop/<id>-<slug of the ticket's title>) — or
// adopts the open one from that branch; links it to
// the item (the portable record, a marked comment on the ticket, `Closes`
// in its body for a GitHub item, a remote link for a Jira one); and starts
// its pdlc-pr-loop unless it only carries the outer loop's discussion or
// lands the spec chain. Opening a pull request only adds work, so an agent
// may do it.
func (s *Service) PRCreate(ctx context.Context, req PRCreateRequest) (PRCreateResult, error) {
	res := PRCreateResult{WorkItem: req.WorkItem, Role: []string{}}
	sess, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return res, err
	}
	res.Warnings = sess.warns
	if sess.state.CurrentNode == "" {
		return res, invalid(fmt.Errorf("%s has not entered its loop yet; a pull request is opened once the work item is armed", req.WorkItem))
	}
	if h := runtime.Held(s.cfg, sess.state); h != nil {
		return res, h
	}
	if sess.rt.Graph.Name != graphs.Default {
		return res, invalid(fmt.Errorf("%s walks %s, which opens no pull request of its own", req.WorkItem, sess.rt.Graph.Name))
	}
	plan, err := s.planTarget(sess, req)
	if err != nil {
		return res, err
	}
	if sess.rt.CodeHost == nil && s.deps.DeferEntry {
		if err := declaredTarget(sess, plan.repo); err != nil {
			return res, err
		}
		return s.askPull(ctx, sess, req, plan, res)
	}
	if err := s.planBranch(ctx, sess, req, &plan); err != nil {
		return res, err
	}
	host := sess.rt.CodeHost
	opener, ok := host.(integrations.PullRequestOpener)
	if host == nil || !ok {
		return res, fmt.Errorf("pull request on %s: %w", plan.repo, ErrNoIntegration)
	}
	owner, name, _ := strings.Cut(plan.repo, "/")
	pr, created, err := opener.OpenPullRequest(ctx, integrations.NewPullRequest{Owner: owner, Repo: name, Title: plan.title, Body: plan.body,
		Head: plan.head, Base: plan.base, Draft: req.Draft})
	if err != nil {
		if errors.Is(err, integrations.ErrInvalid) {
			err = invalid(err)
		}
		return res, fmt.Errorf("open the pull request of %s in %s from %s: %w", req.WorkItem, plan.repo, plan.head, err)
	}
	res.Created = created
	link := runtime.PullRequestLink{Repo: plan.repo, Number: pr.Number, URL: pr.URL, Head: pr.Head, Base: pr.Base, State: runtime.PullOpen,
		Surface: plan.surface, LinkedBy: req.Actor}
	if plan.inner {
		if link.InnerLoop, err = runtime.InnerLoopDir(sess.rt.Origin, plan.repo, pr.Number); err != nil {
			return res, err
		}
	}
	res.Warnings = append(res.Warnings, s.linkOnTracker(ctx, sess, host, pr, plan.repo)...)
	if res.PullRequest, _, err = sess.rt.LinkPull(ctx, req.WorkItem, link); err != nil {
		return res, err
	}
	res.Role = roles(res.PullRequest)
	if res.PullRequest.InnerLoop != "" {
		node, warns, err := s.startInner(ctx, req.Repo, req.WorkItem, res.PullRequest)
		res.Warnings = append(res.Warnings, warns...)
		if err != nil {
			return res, err
		}
		res.InnerLoopNode = node
	}
	return res, nil
}

// declaredTarget refuses, for a launched session's server, a pull request
// in a repository the item does not declare: the origin repository, or
// one the item's declaration names (graph_repos), and nothing else.
func declaredTarget(sess *session, repo string) error {
	origin := sess.rt.Origin
	view := sess.rt.Trusted(sess.state, false)
	allowed := runtime.DeclaredRepos(view.State.Repos)
	if origin != "" && !slices.ContainsFunc(allowed, func(r string) bool { return runtime.SameRepo(r, origin) }) {
		allowed = append([]string{origin}, allowed...)
	}
	if slices.ContainsFunc(allowed, func(r string) bool { return runtime.SameRepo(r, repo) }) {
		return nil
	}
	return invalid(fmt.Errorf("%s is not a repository %s declares (%s): a session opens pull requests only there; declare it first with graph_repos, or ask an operator",
		repo, sess.state.WorkItem, orNothing(allowed)))
}

// pullPlan is what PRCreate opens.
type pullPlan struct {
	repo, head, base, title, body string
	inner, surface                bool
}

// askPull records, for a launched session's server, the pull request the
// poller opens on its next cycle.
func (s *Service) askPull(ctx context.Context, sess *session, req PRCreateRequest, plan pullPlan, res PRCreateResult) (PRCreateResult, error) {
	ask := runtime.PullAsk{Base: strings.TrimSpace(req.Base), Draft: req.Draft, By: req.Actor}
	if strings.TrimSpace(req.Repository) != "" {
		ask.Repo = plan.repo
	}
	if _, err := sess.rt.AskPull(ctx, req.WorkItem, ask); err != nil {
		return res, err
	}
	res.Asked = true
	res.PullRequest = runtime.PullRequestLink{Repo: plan.repo, Base: plan.base}
	res.Role = plannedRoles(plan)
	return res, nil
}

// plannedRoles are the roles a planned pull request will have.
func plannedRoles(p pullPlan) []string {
	l := runtime.PullRequestLink{Surface: p.surface}
	if p.inner {
		l.InnerLoop = "planned"
	}
	return roles(l)
}

// planTarget decides where the pull request goes and what it is for, or
// why it may not be opened yet; planBranch then names its branch and
// title.
func (s *Service) planTarget(sess *session, req PRCreateRequest) (pullPlan, error) {
	origin := sess.rt.Origin
	p := pullPlan{repo: strings.TrimSpace(req.Repository), base: strings.TrimSpace(req.Base)}
	if p.repo == "" {
		p.repo = origin
	}
	if p.repo == "" {
		return p, invalid(errors.New("the origin repository is unknown (ticketing.github in the repository config): name the repository with --repository OWNER/REPO"))
	}
	if err := runtime.CheckRepo(p.repo); err != nil {
		return p, invalid(fmt.Errorf("repository: %w", err))
	}
	if p.base == "" {
		p.base = DefaultBase
	}
	if err := workspace.ValidateBranch(p.base); err != nil {
		return p, invalid(fmt.Errorf("base: %w", err))
	}
	view := sess.rt.Trusted(sess.state, false)
	atOrigin := origin != "" && runtime.SameRepo(p.repo, origin)
	contributing := !atOrigin || contributes(view.State, origin)
	p.surface = atOrigin && surfaceOf(view.State) == checklist.SurfacePullRequest
	p.inner = contributing
	if atOrigin && !contributing && !p.surface && !pastImplementation(sess) {
		return p, invalid(fmt.Errorf("%s receives no code in %s (declared: %s), so its pull request only lands the spec chain, once the chain is locked and the inner loops have finished; "+
			"%s is at %s. (Tick `%s` at phase selection to iterate the spec chain on a pull request instead.)",
			p.repo, req.WorkItem, orNothing(runtime.DeclaredRepos(view.State.Repos)), req.WorkItem, sess.state.CurrentNode, checklist.SurfaceToken))
	}
	return p, nil
}

// planBranch names the pull request's head branch (the item's branch),
// title and body.
func (s *Service) planBranch(ctx context.Context, sess *session, req PRCreateRequest, p *pullPlan) error {
	title, err := s.ticketTitle(ctx, sess)
	if err != nil {
		return err
	}
	if p.head = checkedOutBranch(sess.repo.Root); p.head == "" || p.head == p.base {
		if p.head, err = workspace.BranchFor(req.WorkItem, title); err != nil {
			return invalid(err)
		}
	}
	p.title = strings.TrimSpace(title)
	if p.title == "" {
		p.title = req.WorkItem
	}
	p.title = fmt.Sprintf("%s (%s)", p.title, req.WorkItem)
	p.body = fmt.Sprintf("Work item %s, opened by the-loop from %s.\n", req.WorkItem, p.head)
	return nil
}

// contributes reports whether the origin repository receives code: it is
// declared, or nothing is declared (the origin is the default).
func contributes(st *runtime.State, origin string) bool {
	if st.Repos == nil {
		return true
	}
	return slices.ContainsFunc(runtime.DeclaredRepos(st.Repos), func(r string) bool { return runtime.SameRepo(r, origin) })
}

// surfaceOf is where the outer loop's artifacts are iterated, as the
// signed phase selection recorded it ("" when none was).
func surfaceOf(st *runtime.State) string {
	if d := st.Decisions["phase-selection"]; d != nil {
		if sf, ok := d.Data["surface"].(string); ok {
			return sf
		}
	}
	return ""
}

// pastImplementation reports an outer walk that stands past its
// implementation node: the chain is locked and the inner loops finished.
func pastImplementation(sess *session) bool {
	impl, ok := sess.rt.Graph.Node("implementation")
	cur, okCur := sess.rt.Graph.Node(sess.state.CurrentNode)
	return ok && okCur && cur.Index() > impl.Index() && !cur.Terminal
}

// ticketTitle reads the work item's ticket for its title ("" when the item
// names no ticket).
func (s *Service) ticketTitle(ctx context.Context, sess *session) (string, error) {
	ref, err := runtime.ParseTicketRef(sess.state.Ref)
	if err != nil || sess.state.Ref == "" {
		return "", nil
	}
	if sess.rt.Tracker == nil {
		return "", fmt.Errorf("read %s for the branch name: %w", sess.state.Ref, ErrNoIntegration)
	}
	is, err := sess.rt.Tracker.GetIssue(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("read %s for the branch name: %w", sess.state.Ref, err)
	}
	return is.Title, nil
}

func roles(l runtime.PullRequestLink) []string {
	var out []string
	if l.InnerLoop != "" {
		out = append(out, "code")
	}
	if l.Surface {
		out = append(out, "discussion")
	}
	if len(out) == 0 {
		out = append(out, "spec")
	}
	return out
}

// linkOnTracker links pr to the item's ticket: `Closes` in its body for a
// GitHub item, a remote link for a Jira one, and one marked comment on the
// ticket either way. What fails is a warning: the pull request is open and
// recorded.
func (s *Service) linkOnTracker(ctx context.Context, sess *session, host integrations.Provider, pr integrations.PullRequest, repo string) []string {
	ref, err := runtime.ParseTicketRef(sess.state.Ref)
	if err != nil || sess.state.Ref == "" {
		return []string{fmt.Sprintf("%s names no ticket, so %s#%d is linked in the record only", sess.state.WorkItem, repo, pr.Number)}
	}
	var warns []string
	owner, name, _ := strings.Cut(repo, "/")
	switch ref.System {
	case "github":
		if l, ok := host.(integrations.PullRequestLinker); ok {
			if err := l.LinkPullRequest(ctx, ref, owner, name, pr.Number); err != nil {
				warns = append(warns, fmt.Sprintf("could not write %q into %s#%d: %v", github.ClosingLine(ref, owner, name), repo, pr.Number, err))
			}
		}
	default:
		if l, ok := sess.rt.Tracker.(integrations.TicketLinker); ok && sess.rt.Tracker != nil {
			if err := l.LinkTicket(ctx, ref, pr); err != nil {
				warns = append(warns, fmt.Sprintf("could not link %s#%d from %s: %v", repo, pr.Number, sess.state.Ref, err))
			}
		}
	}
	if sess.rt.Tracker == nil {
		return append(warns, fmt.Sprintf("no %s integration: the link comment was not posted on %s", ref.System, sess.state.Ref))
	}
	key, _ := runtime.RepoStateKey(repo)
	marker := fmt.Sprintf("<!-- the-loop:pr-link:%s-%d -->", strings.ToLower(key), pr.Number)
	body := fmt.Sprintf("🔗 Pull request [%s#%d](%s) works on %s (from `%s` into `%s`).", repo, pr.Number, pr.URL, sess.state.WorkItem, pr.Head, pr.Base)
	if _, _, err := integrations.UpsertComment(ctx, sess.rt.Tracker, ref, marker, body, s.cfg.Routing.SelfLogins); err != nil {
		warns = append(warns, fmt.Sprintf("the link comment was not posted on %s: %v", sess.state.Ref, err))
	}
	return warns
}
