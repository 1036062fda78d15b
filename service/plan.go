package service

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/dag"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// PlanRequest names the item a plan is drawn around.
type PlanRequest struct {
	Repo string `json:"repo"`
	// Item is a ticket reference (github:OWNER/REPO#12, jira:PROJ-12, #12,
	// OWNER/REPO#12, PROJ-12 or the ticket's URL) or a work item id of the
	// repository (issue-12).
	Item string `json:"item"`
}

// PlanResult is the dependency graph under a parent item, or around one
// item: every ticket reachable through children and dependencies, with the
// loop's progress on each and what holds it. Its JSON is the plan's.
type PlanResult struct {
	Plan dag.Plan
	// Root is the item the plan was drawn around, qualified.
	Root     string
	Warnings []string
}

// MarshalJSON writes the plan (see dag.Plan.MarshalJSON).
func (r PlanResult) MarshalJSON() ([]byte, error) { return r.Plan.MarshalJSON() }

// Plan reads the trackers' relationships around one item and evaluates them
// against the loop's progress (the store and the portable records of the
// polled checkouts). It writes nothing; it reads the trackers, never
// decides anything, and a ticket it cannot read is kept as unreadable.
func (s *Service) Plan(ctx context.Context, req PlanRequest) (PlanResult, error) {
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return PlanResult{}, err
	}
	t, warns := s.trackers()
	t.GitHub = s.batchOnce(t.GitHub, t.GitHubHost)
	warns = append(append([]string(nil), repo.Warnings...), warns...)
	st, release, err := s.readStore(ctx)
	if err != nil {
		return PlanResult{Warnings: warns}, err
	}
	defer release()
	root, err := planRoot(ctx, st, repo, t, req.Item)
	if err != nil {
		return PlanResult{Warnings: warns}, err
	}
	plan, err := s.collectPlan(ctx, t, []integrations.Ref{root}, s.progressLookup(ctx, st, t, repo, checkouts{}, nil))
	if err != nil {
		return PlanResult{Warnings: warns}, fmt.Errorf("plan %s: %w", root, err)
	}
	return PlanResult{Plan: plan, Root: root.String(), Warnings: warns}, nil
}

// planRoot resolves the plan's item: a work item of repo with a recorded
// ticket (or one its configuration derives), else a ticket reference read
// relative to the repository's own tracker.
func planRoot(ctx context.Context, st *store.Store, repo *repoconfig.Repo, t relations.Trackers, item string) (integrations.Ref, error) {
	if item == "" {
		return integrations.Ref{}, invalid(errors.New("name the plan's item: a ticket reference (github:OWNER/REPO#12, jira:PROJ-12, #12) or a work item id (issue-12)"))
	}
	if ref, ok := itemRef(ctx, st, repo, item); ok {
		return t.Canon(ref), nil
	}
	home := integrations.Ref{System: repo.Config.Ticketing.System}
	if origin := repo.OriginRepo(); origin != "" {
		if r, err := relations.Parse("github:"+origin+"#1", integrations.Ref{}); err == nil {
			home = r
		}
	}
	ref, err := relations.Parse(item, home)
	if err != nil {
		return integrations.Ref{}, invalid(fmt.Errorf("item %q is neither a work item of %s nor a ticket reference: %w", item, repo.Root, err))
	}
	return t.Canon(ref), nil
}

// itemRef is the ticket of work item id of repo: its recorded ref, else the
// one the repository configuration derives; ok is false when item is no
// work item there.
func itemRef(ctx context.Context, st *store.Store, repo *repoconfig.Repo, id string) (integrations.Ref, bool) {
	if runtime.ValidateID(id) != nil {
		return integrations.Ref{}, false
	}
	if _, err := os.Stat(repo.SpecDir(id)); err != nil {
		if ref, err := runtime.ParseTicketRef(repo.DefaultRef(id)); err == nil {
			return ref, true
		}
		return integrations.Ref{}, false
	}
	state, _, err := (&persister{st: st, repo: repo}).Load(ctx, id)
	refStr := repo.DefaultRef(id)
	if err == nil && state.Ref != "" {
		refStr = state.Ref
	}
	ref, err := runtime.ParseTicketRef(refStr)
	return ref, err == nil
}
