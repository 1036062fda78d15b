package service

import (
	"context"
	"fmt"

	"github.com/the-loop/the-loop/runtime"
)

// CheckRequest selects what check evaluates.
type CheckRequest struct {
	Repo      string `json:"repo"`
	WorkItem  string `json:"workItem"`
	All       bool   `json:"all"`
	Recompute bool   `json:"recompute"`
}

// CheckResult is the reports plus what the user should be warned about.
type CheckResult struct {
	Reports  []runtime.Report
	Warnings []string
	// Graphs maps a work item to the loop its report was computed on.
	Graphs map[string]*runtime.Graph
}

// Check evaluates work items read-only: no network, no subprocess, no write.
// Without Recompute it starts from stored state (the store, else the portable
// record); with it, every verdict is derived from the artifacts and the
// verified decisions alone.
func (s *Service) Check(ctx context.Context, req CheckRequest) (CheckResult, error) {
	if req.WorkItem == "" && !req.All {
		return CheckResult{}, fmt.Errorf("give a work item id, or --all")
	}
	if req.WorkItem != "" && req.All {
		return CheckResult{}, fmt.Errorf("give either a work item id or --all, not both")
	}
	repo, err := OpenRepo(s.repoDir(req.Repo))
	if err != nil {
		return CheckResult{}, err
	}
	ids := []string{req.WorkItem}
	if req.All {
		if ids, err = repo.WorkItems(); err != nil {
			return CheckResult{}, err
		}
	} else if err := runtime.ValidateID(req.WorkItem); err != nil {
		return CheckResult{}, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return CheckResult{}, err
	}
	defer release()
	p := &persister{st: st, repo: repo}
	res := CheckResult{Warnings: append([]string(nil), repo.Warnings...), Graphs: map[string]*runtime.Graph{}}
	for _, id := range ids {
		state, warns, err := p.Load(ctx, id)
		if err != nil {
			return res, err
		}
		res.Warnings = append(res.Warnings, warns...)
		g, warn, err := loopFor(state)
		if err != nil {
			return res, err
		}
		if warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
		rt := &runtime.Runtime{Graph: g, Config: s.Config, Signer: s.Signer, Repo: repo.Root, SpecRoot: repo.SpecRoot, Log: s.log()}
		rep := rt.Status(ctx, id, state, req.Recompute)
		res.Warnings = append(res.Warnings, rep.Warnings...)
		res.Reports = append(res.Reports, rep)
		res.Graphs[id] = g
	}
	return res, nil
}
