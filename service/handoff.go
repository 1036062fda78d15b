package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
)

// Handoff events in a work item's log.
const (
	EventHandoffHonoured = "handoff.honoured"
	EventHandoffIgnored  = "handoff.ignored"
	EventArmRefused      = "arm.refused"
)

// ErrArmRefused marks a work item the poller will not arm.
var ErrArmRefused = errors.New("arming refused")

// IsSelfComment reports a comment the loop itself posted (authz.OwnComment):
// it carries the self-authored marker and its author (from the API) is one
// of routing.selfLogins. Without selfLogins nothing is the loop's own,
// because anyone can type the marker: a record the loop posted then counts
// only if its author is also authorized.
func IsSelfComment(cfg *config.Config, c integrations.Comment) bool { return authz.OwnComment(cfg, c) }

// FindHandoff picks the handoff record among an unstarted item's comments:
// the newest well-formed record whose author is in routing.authorizedUsers,
// or that the loop posted itself for a person in routing.authorizedUsers
// (the person is then its author, never the loop). It returns the state block to freeze (nil
// when there is none: the item starts as it would without a handoff), the
// spec-chain artifact URL the record names, and one event per record
// honoured or ignored, with the reason.
func FindHandoff(cfg *config.Config, comments []integrations.Comment) (*runtime.HandoffState, string, []runtime.EventRecord) {
	found, rejected := handoff.FindRecord(comments,
		func(login string) bool { return IsAuthorized(cfg, login) },
		func(c integrations.Comment) bool { return IsSelfComment(cfg, c) })
	evs := make([]runtime.EventRecord, 0, len(rejected)+1)
	for _, r := range rejected {
		evs = append(evs, runtime.EventRecord{Name: EventHandoffIgnored, Data: map[string]any{
			"commentUrl": r.CommentURL, "author": r.Author, "code": string(r.Code), "reason": r.Reason}})
	}
	if found == nil {
		return nil, "", evs
	}
	raw, err := handoff.EncodeJSON(found.Record)
	if err != nil {
		evs = append(evs, runtime.EventRecord{Name: EventHandoffIgnored, Data: map[string]any{
			"commentUrl": found.CommentURL, "author": found.Author, "reason": err.Error()}})
		return nil, "", evs
	}
	evs = append(evs, runtime.EventRecord{Name: EventHandoffHonoured, Data: map[string]any{
		"commentUrl": found.CommentURL, "author": found.Author, "stage": found.Record.Stage,
		"enter": found.Record.Enter, "carriedBy": found.Record.CarriedBy}})
	hs := &runtime.HandoffState{Record: raw, Author: found.Author, CommentAuthor: found.Comment.Author, CommentURL: found.CommentURL, RecordedAt: runtime.Now()}
	return hs, found.Record.SpecArtifact, evs
}

// arm starts an item the poller is arming. A ticket labelled as a Jira copy
// of another issue (handoff.MirrorLabel) is refused with an arm.refused
// event: the copy is never walked. Otherwise, for the work-item loop, the
// handoff record among comments is frozen into state with the start — only
// when the item has no pointer yet, which Runtime.Start re-checks under its
// lock, so a record posted or edited after the walk began never reaches
// state.
func (p *Poller) arm(ctx context.Context, is integrations.Issue, req StartRequest, comments []integrations.Comment) (runtime.StartResult, error) {
	svc := p.Svc
	if hasLabel(is.Labels, handoff.MirrorLabel) {
		evs := []runtime.EventRecord{{Name: EventArmRefused, Data: map[string]any{"reason": "mirror", "label": handoff.MirrorLabel}}}
		if err := svc.appendEvents(ctx, req.Repo, req.WorkItem, evs); err != nil {
			p.log().Warn("could not record the arming refusal", "workItem", req.WorkItem, "err", err)
		}
		p.log().Info("arming refused: the ticket is a mirror", "workItem", req.WorkItem, "label", handoff.MirrorLabel)
		return runtime.StartResult{}, fmt.Errorf("%w: %s carries the %s label, so it is a copy of another issue; arm the original", ErrArmRefused, req.Ref, handoff.MirrorLabel)
	}
	loop := req.Loop
	if loop == "" {
		loop = graphs.Default
	}
	if loop != graphs.Default {
		res, err := svc.Start(ctx, req) // only the work-item loop has a place for a handoff
		return res.StartResult, err
	}
	hs, artifactURL, evs := FindHandoff(svc.cfg, comments)
	for _, e := range evs {
		p.log().Info(e.Name, "workItem", req.WorkItem, "commentUrl", e.Data["commentUrl"], "reason", e.Data["reason"])
	}
	req.Handoff = hs
	res, warns, err := svc.startWith(ctx, req, artifactURL)
	if err != nil {
		return res, err
	}
	for _, w := range warns {
		p.log().Warn(w, "workItem", req.WorkItem)
	}
	if !res.Started {
		return res, nil // someone else started it first: nothing of this lookup applies
	}
	if err := svc.appendEvents(ctx, req.Repo, req.WorkItem, evs); err != nil {
		p.log().Warn("could not record the handoff lookup", "workItem", req.WorkItem, "err", err)
	}
	return res, nil
}

// startWith is Start with the spec-chain artifact URL a handoff names.
func (s *Service) startWith(ctx context.Context, req StartRequest, artifactURL string) (runtime.StartResult, []string, error) {
	sess, err := s.open(ctx, req.Repo, req.WorkItem, req.Loop)
	if err != nil {
		return runtime.StartResult{}, nil, err
	}
	ref := req.Ref
	if ref == "" {
		ref = sess.repo.DefaultRef(req.WorkItem)
	}
	opts := runtime.StartOptions{Ref: ref, Handoff: req.Handoff}
	if req.Handoff != nil {
		opts.ClaudeArtifactURL = artifactURL
	}
	res, err := sess.rt.Start(ctx, req.WorkItem, opts)
	return res, sess.warns, err
}

// appendEvents adds events to a work item's log without touching its state.
func (s *Service) appendEvents(ctx context.Context, repoDir, id string, evs []runtime.EventRecord) error {
	if len(evs) == 0 {
		return nil
	}
	sess, err := s.open(ctx, repoDir, id, "")
	if err != nil {
		return err
	}
	return sess.rt.Persist.Append(ctx, id, evs)
}

// workItemID is the spec-folder id the poller gives a ticket: issue-<n> for
// GitHub, the key for Jira.
func workItemID(ref integrations.Ref) string {
	if ref.System == "jira" {
		return ref.Key
	}
	return fmt.Sprintf("issue-%d", ref.Number)
}

// frozenSession opens an item and returns its frozen handoff record.
func (s *Service) frozenSession(ctx context.Context, req ItemRequest) (*session, handoff.Record, error) {
	sess, err := s.open(ctx, req.Repo, req.WorkItem, "")
	if err != nil {
		return nil, handoff.Record{}, err
	}
	if sess.state.Handoff == nil {
		return sess, handoff.Record{}, fmt.Errorf("%s: %w", req.WorkItem, ErrNoHandoff)
	}
	rec, err := handoff.DecodeFrozen(sess.state.Handoff.Record)
	return sess, rec, err
}

// ErrNoHandoff marks a work item whose state holds no handoff.
var ErrNoHandoff = errors.New("no handoff is frozen in this work item's state (a handoff is read once, when the item is armed)")

func joinNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
