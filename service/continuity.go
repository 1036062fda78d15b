package service

import (
	"context"
	"sync"

	"github.com/the-loop/the-loop/continuity"
)

// continuityLocks holds one mutex per repository root, so that continuity
// writes made through one process (the MCP server serving many clients)
// never interleave: each update reads the set, changes it and flushes it
// as one step.
var continuityLocks sync.Map // root -> *sync.Mutex

// continuitySet opens the continuity set of repo ("" = the default
// repository) and locks it; call the returned function to unlock.
func (s *Service) continuitySet(ctx context.Context, repo string) (*continuity.Set, func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// The continuity tools honour the served-repositories allow-list like
	// every other tool: only a served root is opened.
	if err := s.allowedRoot(s.repoDir(repo)); err != nil {
		return nil, nil, err
	}
	set, err := continuity.Open(s.repoDir(repo))
	if err != nil {
		return nil, nil, err
	}
	m, _ := continuityLocks.LoadOrStore(set.Root, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return set, mu.Unlock, nil
}

// ContinuityUpdate records one changed fact in the live continuity set of
// repo: the same (*continuity.Set).Update that `the-loop continuity update`
// calls, behind the continuity_update tool.
func (s *Service) ContinuityUpdate(ctx context.Context, repo string, e continuity.Entry) (continuity.UpdateResult, error) {
	set, unlock, err := s.continuitySet(ctx, repo)
	if err != nil {
		return continuity.UpdateResult{}, err
	}
	defer unlock()
	return set.Update(e)
}

// ContinuityBrief packages a budgeted brief of repo's continuity record:
// the same (*continuity.Set).Brief that `the-loop continuity brief` calls,
// behind the continuity_brief tool.
func (s *Service) ContinuityBrief(ctx context.Context, repo string, opts continuity.BriefOptions) (continuity.Brief, error) {
	set, unlock, err := s.continuitySet(ctx, repo)
	if err != nil {
		return continuity.Brief{}, err
	}
	defer unlock()
	return set.Brief(opts)
}

// ContinuityPrompt builds a path-free delegation prompt from repo's
// continuity record: the same (*continuity.Set).Prompt that `the-loop
// continuity prompt` calls, behind the continuity_prompt tool. With
// opts.Clipboard nil it only builds the prompt.
func (s *Service) ContinuityPrompt(ctx context.Context, repo string, opts continuity.PromptOptions) (continuity.Prompt, error) {
	set, unlock, err := s.continuitySet(ctx, repo)
	if err != nil {
		return continuity.Prompt{}, err
	}
	defer unlock()
	return set.Prompt(opts)
}

// ContinuityResume resumes repo's live continuity set, or starts a fresh one
// from the goal a set that cannot be resumed still records (that set is
// kept under .handoff/continuity/rejected/): the same
// (*continuity.Set).Resume that `the-loop continuity resume` calls, behind
// the continuity_resume tool.
func (s *Service) ContinuityResume(ctx context.Context, repo string) (continuity.StartResult, error) {
	set, unlock, err := s.continuitySet(ctx, repo)
	if err != nil {
		return continuity.StartResult{}, err
	}
	defer unlock()
	set.Harness = "mcp"
	return set.Resume()
}
