package service

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// openInner opens the inner loop of link on work item id: its state is kept
// under the item's id and the loop's folder (pr-loops/pr-7), its record in
// that folder, its artifacts are the item's, and its ticket is the pull
// request itself.
func (s *Service) openInner(ctx context.Context, repoDir, id string, link runtime.PullRequestLink) (*session, error) {
	if link.InnerLoop == "" {
		return nil, invalid(fmt.Errorf("%s walks no pull request loop", link.Key()))
	}
	if err := validID(id); err != nil {
		return nil, err
	}
	repo, err := s.openRepo(repoDir)
	if err != nil {
		return nil, err
	}
	st, err := s.writableStore(ctx)
	if err != nil {
		return nil, err
	}
	p := &persister{st: st, repo: repo, log: s.log(), sub: link.InnerLoop}
	state, warns, err := p.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	g, err := Graph(prLoop)
	if err != nil {
		return nil, err
	}
	signer, signWarns := s.signerFor(repo)
	host := s.codeHost()
	origin := repo.OriginRepo()
	rt := &runtime.Runtime{Graph: g, Persist: p, Config: s.cfg, Signer: signer, Repo: repo.Root, SpecRoot: repo.SpecRoot, Commands: repoCommands(repo),
		Tracker: host, CodeHost: host, Origin: origin, Notifier: s.deps.Notifier, Log: s.log(), DeferEntry: s.deps.DeferEntry,
		LoopDir: link.InnerLoop, OS: s.deps.OS, Hosts: s.hosts()}
	if s.deps.Sessions != nil {
		rt.Assignments = desk{sup: s.deps.Sessions, repo: repo.Root, prRepo: link.Repo, pr: link.Number}
	}
	p.adopt = func(ctx context.Context, st *runtime.State) []runtime.EventRecord {
		return rt.VetAdoptedPointer(ctx, id, st)
	}
	return &session{repo: repo, rt: rt, state: state, warns: append(append(repo.Warnings, warns...), signWarns...)}, nil
}

// pullRef is the ticket ref of a linked pull request.
func pullRef(l runtime.PullRequestLink) string { return "github:" + l.Key() }

// startInner starts link's inner loop (idempotent) and returns its node.
func (s *Service) startInner(ctx context.Context, repoDir, id string, link runtime.PullRequestLink) (string, []string, error) {
	inner, err := s.openInner(ctx, repoDir, id, link)
	if err != nil {
		return "", nil, err
	}
	res, err := inner.rt.Start(ctx, id, runtime.StartOptions{Ref: pullRef(link)})
	if err != nil {
		return "", inner.warns, fmt.Errorf("start the loop of %s: %w", link.Key(), err)
	}
	return res.Node, inner.warns, nil
}

// innerFor finds the linked pull request a request names: number n in repo
// (default the origin repository), which must walk an inner loop.
func (s *Service) innerFor(ctx context.Context, repoDir, id, repo string, n int) (runtime.PullRequestLink, error) {
	sess, err := s.openKnown(ctx, repoDir, id)
	if err != nil {
		return runtime.PullRequestLink{}, err
	}
	if repo == "" {
		repo = sess.rt.Origin
	}
	var cands []string
	for _, l := range sess.state.PullRequests {
		if l.Number == n && (repo == "" || runtime.SameRepo(l.Repo, repo)) && l.InnerLoop != "" {
			return *l, nil
		}
		if l.InnerLoop != "" {
			cands = append(cands, l.Key())
		}
	}
	where := repo
	if where == "" {
		where = "the origin repository (unknown: pass prRepo)"
	}
	return runtime.PullRequestLink{}, invalid(fmt.Errorf("%s has no pull request loop for #%d in %s; its pull request loops: %s (open one with `the-loop pr create --work-item %s`)",
		id, n, where, orNothing(cands), id))
}

func orNothing(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// pullEvent is what a pull request's gate reads: its conversation, and its
// reviews and inline review comments in the same comment shape (authors
// from the API). A review's verdict is part of what it says: an approval
// reads "Approved." before its text, a change request "Changes requested:".
func pullEvent(ctx context.Context, p integrations.Provider, ref integrations.Ref) (*runtime.Event, error) {
	comments, err := p.ListComments(ctx, ref)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(comments)
	if rl, ok := p.(integrations.ReviewLister); ok {
		reviews, err := rl.ListReviews(ctx, ref.Owner, ref.Repo, ref.Number)
		if err != nil {
			return nil, err
		}
		for _, r := range reviews {
			if c, ok := reviewComment(r); ok {
				out = append(out, c)
			}
		}
	}
	if cl, ok := p.(integrations.ReviewCommentLister); ok {
		rcs, err := cl.ListReviewComments(ctx, ref.Owner, ref.Repo, ref.Number)
		if err != nil {
			return nil, err
		}
		for _, rc := range rcs {
			out = append(out, rc.AsComment())
		}
	}
	slices.SortStableFunc(out, func(a, b integrations.Comment) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return &runtime.Event{Comments: out}, nil
}

// reviewComment is a submitted review as a comment (a pending or dismissed
// review says nothing).
func reviewComment(r integrations.Review) (integrations.Comment, bool) {
	c := r.AsComment()
	body := strings.TrimSpace(r.Body)
	switch r.State {
	case "APPROVED":
		body = strings.TrimSpace("Approved.\n\n" + body)
	case "CHANGES_REQUESTED":
		body = strings.TrimSpace("Changes requested: " + body)
	case "COMMENTED":
		if body == "" {
			return c, false
		}
	default:
		return c, false
	}
	c.Body = body
	return c, true
}
