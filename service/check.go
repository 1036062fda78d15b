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

// Check evaluates work items read-only and collects the reports.
func (s *Service) Check(ctx context.Context, req CheckRequest) (CheckResult, error) {
	res := CheckResult{Graphs: map[string]*runtime.Graph{}}
	warns, err := s.CheckEach(ctx, req, func(rep runtime.Report, g *runtime.Graph) error {
		res.Reports = append(res.Reports, rep)
		res.Graphs[rep.WorkItem] = g
		return nil
	})
	res.Warnings = warns
	return res, err
}

// CheckEach evaluates work items read-only — no network, no subprocess, no
// write — calling emit with each report in work-item order, so a caller can
// stream thousands of items in constant memory. Without Recompute it starts
// from stored state (the store, else the portable record); with it, every
// verdict is derived from the artifacts and the verified decisions alone.
func (s *Service) CheckEach(ctx context.Context, req CheckRequest, emit func(runtime.Report, *runtime.Graph) error) ([]string, error) {
	if req.WorkItem == "" && !req.All {
		return nil, fmt.Errorf("give a work item id, or --all")
	}
	if req.WorkItem != "" && req.All {
		return nil, fmt.Errorf("give either a work item id or --all, not both")
	}
	repo, err := OpenRepo(s.repoDir(req.Repo))
	if err != nil {
		return nil, err
	}
	ids := []string{req.WorkItem}
	if req.All {
		if ids, err = repo.WorkItems(); err != nil {
			return nil, err
		}
	} else if err := runtime.ValidateID(req.WorkItem); err != nil {
		return nil, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	p := &persister{st: st, repo: repo}
	warnings := append([]string(nil), repo.Warnings...)
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return warnings, err
		}
		state, warns, err := p.Load(ctx, id)
		if err != nil {
			return warnings, err
		}
		warnings = append(warnings, warns...)
		g, warn, err := loopFor(state)
		if err != nil {
			return warnings, err
		}
		if warn != "" {
			warnings = append(warnings, warn)
		}
		rt := &runtime.Runtime{Graph: g, Config: s.Config, Signer: s.Signer, Repo: repo.Root, SpecRoot: repo.SpecRoot, Log: s.log()}
		rep := rt.Status(ctx, id, state, req.Recompute)
		warnings = append(warnings, rep.Warnings...)
		if err := emit(rep, g); err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}
