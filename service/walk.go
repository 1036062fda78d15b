package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
)

// ItemRequest names one work item in one repository.
type ItemRequest struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
}

// StartRequest starts a walk.
type StartRequest struct {
	ItemRequest
	// Loop is the shipped loop to walk ("" = the default loop).
	Loop string `json:"loop"`
	// Ref is the ticket ref (default: derived from the harness config).
	Ref string `json:"ref"`
	// Handoff, when set, is frozen into state (only for an unstarted item).
	Handoff *runtime.HandoffState `json:"-"`
}

// StartResult is where the walk began, with what the user should know.
type StartResult struct {
	runtime.StartResult
	Warnings []string `json:"-"`
}

// Start begins a walk at the loop's start node (idempotent).
func (s *Service) Start(ctx context.Context, req StartRequest) (StartResult, error) {
	if req.Loop != "" {
		if _, err := Graph(req.Loop); err != nil {
			return StartResult{}, err
		}
	}
	sess, err := s.open(ctx, req.Repo, req.WorkItem, req.Loop)
	if err != nil {
		return StartResult{}, err
	}
	if sess.state.CurrentNode != "" && req.Loop != "" && sess.state.Loop != req.Loop {
		return StartResult{Warnings: sess.warns}, fmt.Errorf("%s already walks %s; a started item keeps its loop", req.WorkItem, sess.state.Loop)
	}
	ref := req.Ref
	if ref == "" {
		ref = sess.repo.DefaultRef(req.WorkItem)
	}
	warns := sess.warns
	artifactURL := ""
	if req.Handoff == nil && sess.state.CurrentNode == "" && sess.rt.Graph.Name == graphs.Default {
		// A shell or session starting the walk itself picks up a handoff
		// posted on the ticket, exactly as the poller's arming does.
		var w string
		req.Handoff, artifactURL, w = s.lookupHandoff(ctx, sess, ref)
		if w != "" {
			warns = append(warns, w)
		}
	}
	res, err := sess.rt.Start(ctx, req.WorkItem, runtime.StartOptions{Ref: ref, Handoff: req.Handoff, ClaudeArtifactURL: artifactURL})
	if res.Started && req.Handoff != nil {
		res.Messages = append(res.Messages, "handed off: the walk starts from the handoff record "+req.Handoff.CommentURL)
	}
	return StartResult{StartResult: res, Warnings: warns}, err
}

// lookupHandoff reads the ticket's comments for a handoff record; any
// failure means "no handoff" (fail closed), with a warning.
func (s *Service) lookupHandoff(ctx context.Context, sess *session, ref string) (*runtime.HandoffState, string, string) {
	if sess.rt.Tracker == nil || ref == "" {
		return nil, "", ""
	}
	tr, err := runtime.ParseTicketRef(ref)
	if err != nil {
		return nil, "", ""
	}
	comments, err := sess.rt.Tracker.ListComments(ctx, tr)
	if err != nil {
		return nil, "", fmt.Sprintf("could not read %s to look for a handoff (%v); starting without one", ref, err)
	}
	hs, url, _ := FindHandoff(s.cfg, comments)
	return hs, url, ""
}

// AdvanceResult is the current node's verdict and where the item went.
type AdvanceResult struct {
	runtime.NodeReport
	Warnings []string `json:"-"`
}

// Advance evaluates the current node with the ticket's comments (when an
// integration is configured) and routes.
func (s *Service) Advance(ctx context.Context, req ItemRequest) (AdvanceResult, error) {
	sess, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return AdvanceResult{}, err
	}
	ev, warn := s.event(ctx, sess)
	warns := sess.warns
	if warn != "" {
		warns = append(warns, warn)
	}
	rep, err := sess.rt.Advance(ctx, req.WorkItem, ev)
	return AdvanceResult{NodeReport: rep, Warnings: warns}, err
}

// event reads the ticket's comments for a gate; nil when no integration or
// ref is available (the gate then waits).
func (s *Service) event(ctx context.Context, sess *session) (*runtime.Event, string) {
	if sess.rt.Tracker == nil || sess.state.Ref == "" {
		return nil, ""
	}
	ref, err := runtime.ParseTicketRef(sess.state.Ref)
	if err != nil {
		return nil, ""
	}
	comments, err := sess.rt.Tracker.ListComments(ctx, ref)
	if err != nil {
		return nil, fmt.Sprintf("could not read the comments of %s: %v (the gate stays waiting)", sess.state.Ref, err)
	}
	return &runtime.Event{Comments: comments}, ""
}

// CompleteRequest is an agent's completion claim.
type CompleteRequest struct {
	ItemRequest
	// Node is the claimed node ("" = the current node).
	Node string `json:"node"`
	// PR, when set, claims the node of that pull request's loop instead
	// of the work item's; PRRepo is its repository (default: the origin
	// repository).
	PR     int    `json:"pr"`
	PRRepo string `json:"prRepo"`
	// Actor is who claims it, set by the surface (the CLI's --actor, the
	// MCP caller); never an argument a tool accepts.
	Actor string `json:"-"`
}

// CompleteResult is the claim's verdict.
type CompleteResult struct {
	runtime.ClaimAnswer
	Warnings []string `json:"-"`
}

// Complete runs the claimed node's exit chain and advances on pass.
func (s *Service) Complete(ctx context.Context, req CompleteRequest) (CompleteResult, error) {
	if req.PR != 0 || req.PRRepo != "" {
		return s.completeInner(ctx, req)
	}
	sess, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return CompleteResult{}, err
	}
	// The claimed node's checks may read authorized comments (a security
	// sign-off); a gate never counts anything else.
	ev, warn := s.event(ctx, sess)
	if warn != "" {
		sess.warns = append(sess.warns, warn)
	}
	env, err := sess.rt.CompleteWith(ctx, req.WorkItem, req.Node, req.Actor, ev)
	return CompleteResult{ClaimAnswer: env, Warnings: sess.warns}, err
}

// completeInner is a claim on the node of a pull request's loop.
func (s *Service) completeInner(ctx context.Context, req CompleteRequest) (CompleteResult, error) {
	if req.PR <= 0 {
		return CompleteResult{}, invalid(fmt.Errorf("pr must be the pull request's number (a positive whole number), got %d", req.PR))
	}
	outer, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return CompleteResult{}, err
	}
	if h := runtime.Held(s.cfg, outer.state); h != nil {
		// A paused or stopped item holds its pull requests' loops too.
		return CompleteResult{ClaimAnswer: runtime.ClaimAnswer{Node: req.Node, CurrentNode: outer.state.CurrentNode, Status: runtime.StatusRefused,
			Reason: "held", Messages: []string{h.Error()}}, Warnings: outer.warns}, nil
	}
	link, err := s.innerFor(ctx, req.Repo, req.WorkItem, req.PRRepo, req.PR)
	if err != nil {
		return CompleteResult{}, err
	}
	sess, err := s.openInner(ctx, req.Repo, req.WorkItem, link)
	if err != nil {
		return CompleteResult{}, err
	}
	var ev *runtime.Event
	if host := sess.rt.CodeHost; host != nil {
		ref, _ := runtime.ParseTicketRef(pullRef(link))
		if ev, err = pullEvent(ctx, host, ref); err != nil {
			sess.warns = append(sess.warns, fmt.Sprintf("could not read %s: %v (its gates stay waiting)", link.Key(), err))
			ev = nil
		}
	}
	env, err := sess.rt.CompleteWith(ctx, req.WorkItem, req.Node, req.Actor, ev)
	return CompleteResult{ClaimAnswer: env, Warnings: sess.warns}, err
}

// ForceRequest moves the pointer (an operator act; CLI only).
type ForceRequest struct {
	ItemRequest
	To     string `json:"to"`
	Reason string `json:"reason"`
	// PR, when set, moves the pointer of that pull request's loop instead
	// of the work item's (how an escalated pull request loop is resumed);
	// PRRepo is its repository (default: the origin repository).
	PR     int    `json:"pr"`
	PRRepo string `json:"prRepo"`
	Actor  string `json:"-"`
}

// ForceResult is the move. The embedded result's Cautions (the bypassed
// gate is required, ...) are part of its JSON, as "warnings"; Warnings are
// the service's, printed on stderr.
type ForceResult struct {
	runtime.ForceResult
	// PullRequest names the pull request whose loop was moved ("" for the
	// work item's own loop).
	PullRequest string   `json:"pullRequest,omitempty"`
	Warnings    []string `json:"-"`
}

// Force moves the pointer without forging a verdict.
func (s *Service) Force(ctx context.Context, req ForceRequest) (ForceResult, error) {
	sess, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return ForceResult{}, err
	}
	pull := ""
	if req.PR != 0 || req.PRRepo != "" {
		if req.PR <= 0 {
			return ForceResult{}, invalid(fmt.Errorf("pr must be the pull request's number (a positive whole number), got %d", req.PR))
		}
		link, err := s.innerFor(ctx, req.Repo, req.WorkItem, req.PRRepo, req.PR)
		if err != nil {
			return ForceResult{}, err
		}
		if sess, err = s.openInner(ctx, req.Repo, req.WorkItem, link); err != nil {
			return ForceResult{}, err
		}
		pull = link.Key()
	}
	res, err := sess.rt.Force(ctx, req.WorkItem, req.To, req.Reason, req.Actor)
	if _, known := sess.rt.Graph.Node(req.To); err != nil && (!known || errors.Is(err, runtime.ErrReasonRequired)) {
		err = invalid(err) // the operator named no node of the loop, or no reason
	}
	return ForceResult{ForceResult: res, PullRequest: pull, Warnings: sess.warns}, err
}

// SkipRequest declares skips, or withdraws declared ones (an operator
// act; CLI only).
type SkipRequest struct {
	ItemRequest
	Nodes  []string `json:"nodes"`
	Reason string   `json:"reason"`
	// Withdraw withdraws the declared skips of Nodes instead.
	Withdraw bool   `json:"withdraw"`
	Actor    string `json:"-"`
}

// SkipResult is what was declared and refused; like ForceResult, the
// embedded result's Cautions are part of its JSON.
type SkipResult struct {
	runtime.SkipResult
	Warnings []string `json:"-"`
}

// Skip declares skips for nodes the pointer has not reached, or withdraws
// declared ones.
func (s *Service) Skip(ctx context.Context, req SkipRequest) (SkipResult, error) {
	sess, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return SkipResult{}, err
	}
	act := sess.rt.DeclareSkips
	if req.Withdraw {
		act = sess.rt.WithdrawSkips
	}
	res, err := act(ctx, req.WorkItem, req.Nodes, req.Reason, req.Actor)
	if err != nil && (len(req.Nodes) == 0 || errors.Is(err, runtime.ErrReasonRequired)) {
		err = invalid(err) // the operator named no node, or no reason
	}
	return SkipResult{SkipResult: res, Warnings: sess.warns}, err
}

// EventsResult is an item's event log, oldest first (never nil).
type EventsResult struct {
	Events   []runtime.EventRecord `json:"events"`
	Warnings []string              `json:"-"`
}

// Events returns the item's event log, read-only: it never creates,
// migrates or writes the store (no store yet is an empty log).
func (s *Service) Events(ctx context.Context, req ItemRequest) (EventsResult, error) {
	res := EventsResult{Events: []runtime.EventRecord{}}
	if err := validID(req.WorkItem); err != nil {
		return res, err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return res, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return res, err
	}
	defer release()
	if err := s.requireKnown(ctx, st, repo, req.WorkItem); err != nil {
		return res, err
	}
	evs, err := (&persister{st: st, repo: repo}).Events(ctx, req.WorkItem)
	if evs != nil {
		res.Events = evs
	}
	res.Warnings = repo.Warnings
	return res, err
}
