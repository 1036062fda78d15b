package service

import (
	"context"
	"sync"

	"github.com/the-loop/the-loop/agents/continuity"
)

// continuityLocks holds one mutex per repository root, so that continuity
// writes made through one process (the MCP server serving many clients)
// never interleave: each update reads the set, changes it and flushes it
// as one step.
var continuityLocks sync.Map // root -> *sync.Mutex

// ContinuityScope names the continuity set a request acts on.
type ContinuityScope struct {
	// Repo is any directory inside the checkout ("" = the default
	// repository).
	Repo string `json:"repo"`
	// Harness is the kind of agent session recorded with a new or resumed
	// set ("claude", "cursor", "mcp"; set by the surface, never an argument).
	Harness string `json:"-"`
}

// continuitySet opens the continuity set of scope.Repo and locks it; call
// the returned function to unlock. Like every other request, it honours
// the served-repositories allow-list: only a served root is opened.
func (s *Service) continuitySet(ctx context.Context, scope ContinuityScope) (*continuity.Set, func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := s.allowedRoot(s.repoDir(scope.Repo)); err != nil {
		return nil, nil, err
	}
	set, err := continuity.Open(s.repoDir(scope.Repo))
	if err != nil {
		return nil, nil, err
	}
	set.Harness = scope.Harness
	m, _ := continuityLocks.LoadOrStore(set.Root, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return set, mu.Unlock, nil
}

// withSet runs op on the locked continuity set of scope.
func withSet[T any](ctx context.Context, s *Service, scope ContinuityScope, op func(*continuity.Set) (T, error)) (T, error) {
	set, unlock, err := s.continuitySet(ctx, scope)
	if err != nil {
		var zero T
		return zero, err
	}
	defer unlock()
	return op(set)
}

// ContinuityInitRequest starts (or resumes) a continuity set for a goal.
type ContinuityInitRequest struct {
	ContinuityScope
	continuity.InitOptions
}

// ContinuityStartResult is the session a set was started or resumed as.
type ContinuityStartResult struct {
	continuity.StartResult
	Warnings []string `json:"-"`
}

// ContinuityInit resumes the live set, or starts a fresh one for the goal.
func (s *Service) ContinuityInit(ctx context.Context, req ContinuityInitRequest) (ContinuityStartResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityStartResult, error) {
		res, err := set.Init(req.InitOptions)
		return ContinuityStartResult{StartResult: res}, err
	})
}

// ContinuityResumeRequest resumes the live set.
type ContinuityResumeRequest struct {
	ContinuityScope
}

// ContinuityResume resumes the live continuity set, or starts a fresh one
// from the goal a set that cannot be resumed still records (that set is
// kept under .handoff/continuity/rejected/).
func (s *Service) ContinuityResume(ctx context.Context, req ContinuityResumeRequest) (ContinuityStartResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityStartResult, error) {
		res, err := set.Resume()
		return ContinuityStartResult{StartResult: res}, err
	})
}

// ContinuityUpdateRequest records one changed fact.
type ContinuityUpdateRequest struct {
	ContinuityScope
	continuity.Entry
}

// ContinuityUpdateResult is the set after an update or an end.
type ContinuityUpdateResult struct {
	continuity.UpdateResult
	Warnings []string `json:"-"`
}

// ContinuityUpdate records one changed fact in the live continuity set and
// flushes notes, graph and death point at once.
func (s *Service) ContinuityUpdate(ctx context.Context, req ContinuityUpdateRequest) (ContinuityUpdateResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityUpdateResult, error) {
		res, err := set.Update(req.Entry)
		return ContinuityUpdateResult{UpdateResult: res}, err
	})
}

// ContinuityEndRequest marks where the session ended.
type ContinuityEndRequest struct {
	ContinuityScope
	continuity.EndOptions
}

// ContinuityEnd marks the live set interrupted or completed.
func (s *Service) ContinuityEnd(ctx context.Context, req ContinuityEndRequest) (ContinuityUpdateResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityUpdateResult, error) {
		res, err := set.End(req.EndOptions)
		return ContinuityUpdateResult{UpdateResult: res}, err
	})
}

// ContinuityStatusRequest asks where the live set stands.
type ContinuityStatusRequest struct {
	ContinuityScope
}

// ContinuityStatusResult is the live set, read without writing.
type ContinuityStatusResult struct {
	continuity.StatusReport
	Warnings []string `json:"-"`
}

// ContinuityStatus reports the live set without writing.
func (s *Service) ContinuityStatus(ctx context.Context, req ContinuityStatusRequest) (ContinuityStatusResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityStatusResult, error) {
		res, err := set.Status()
		return ContinuityStatusResult{StatusReport: res}, err
	})
}

// ContinuityBriefRequest packages a brief.
type ContinuityBriefRequest struct {
	ContinuityScope
	continuity.BriefOptions
}

// ContinuityBriefResult is the brief and where it went.
type ContinuityBriefResult struct {
	continuity.Brief
	Warnings []string `json:"-"`
}

// ContinuityBrief packages a budgeted brief of the continuity record.
func (s *Service) ContinuityBrief(ctx context.Context, req ContinuityBriefRequest) (ContinuityBriefResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityBriefResult, error) {
		res, err := set.Brief(req.BriefOptions)
		return ContinuityBriefResult{Brief: res}, err
	})
}

// ContinuityPromptRequest builds a delegation prompt; with a nil
// Clipboard the prompt is only built.
type ContinuityPromptRequest struct {
	ContinuityScope
	continuity.PromptOptions
}

// ContinuityPromptResult is the prompt and what was rewritten or omitted.
type ContinuityPromptResult struct {
	continuity.Prompt
	Warnings []string `json:"-"`
}

// ContinuityPrompt builds a path-free delegation prompt from the continuity
// record.
func (s *Service) ContinuityPrompt(ctx context.Context, req ContinuityPromptRequest) (ContinuityPromptResult, error) {
	return withSet(ctx, s, req.ContinuityScope, func(set *continuity.Set) (ContinuityPromptResult, error) {
		res, err := set.Prompt(req.PromptOptions)
		return ContinuityPromptResult{Prompt: res}, err
	})
}
