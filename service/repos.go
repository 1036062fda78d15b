package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/the-loop/the-loop/runtime"
)

// GraphReposRequest declares (or reads) the repositories a work item needs
// code in.
type GraphReposRequest struct {
	ItemRequest
	// Repositories is the full set, OWNER/REPO each: it replaces the
	// declaration. Empty with Clear false reads the declaration.
	Repositories []string `json:"repositories"`
	// Clear declares that the item needs code in no repository.
	Clear bool `json:"clear"`
	// Actor is who declares, set by the surface; never a tool argument.
	Actor string `json:"-"`
	// AddOnly, set by the MCP binding, refuses a declaration that would
	// drop a repository the item must have a pull request in.
	AddOnly bool `json:"-"`
}

// GraphReposResult is the declaration after the call.
type GraphReposResult struct {
	runtime.ReposResult
	Warnings []string `json:"-"`
}

// GraphRepos replaces the declaration of the repositories work item
// WorkItem needs code in (the full set each time; Clear declares none), or
// reads it when neither is given. await-inner-loops holds the item's
// implementation until each has a pull request loop and every loop has
// finished. The declaration is signed into the state, never read from a
// file an agent edits. Declaring repositories adds work, so an MCP caller
// may (AddOnly); removing one, or clearing, is an operator's act.
func (s *Service) GraphRepos(ctx context.Context, req GraphReposRequest) (GraphReposResult, error) {
	if req.Clear && len(req.Repositories) > 0 {
		return GraphReposResult{}, invalid(errors.New("give the repositories or clear, not both: the repositories are the full set"))
	}
	sess, err := s.openKnown(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return GraphReposResult{}, err
	}
	if !req.Clear && len(req.Repositories) == 0 {
		res, err := sess.rt.ReadRepos(ctx, req.WorkItem)
		return GraphReposResult{ReposResult: res, Warnings: sess.warns}, err
	}
	if _, err := runtime.NormalRepos(req.Repositories); err != nil {
		return GraphReposResult{Warnings: sess.warns}, invalid(err)
	}
	via := runtime.ViaCLI
	if req.AddOnly {
		via = runtime.ViaTool
	}
	res, err := sess.rt.DeclareRepos(ctx, req.WorkItem, req.Repositories, runtime.ReposOptions{Actor: req.Actor, Via: via, AddOnly: req.AddOnly})
	if errors.Is(err, runtime.ErrWouldReduceWork) {
		err = invalid(err)
	}
	warns := sess.warns
	if err == nil && res.Changed && !sess.rt.Signer.CanSign() {
		warns = append(warns, fmt.Sprintf("this host holds no signing key: the declaration of %s is recorded unsigned, and check --recompute ignores it", req.WorkItem))
	}
	return GraphReposResult{ReposResult: res, Warnings: warns}, err
}
