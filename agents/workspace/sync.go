package workspace

import (
	"context"
	"fmt"
	"strings"
)

// Sync outcomes.
const (
	// UpToDate: the tree already has what the remote has.
	UpToDate = "up-to-date"
	// FastForwarded: the tree moved forward to the remote's commit.
	FastForwarded = "fast-forwarded"
	// Ahead: the tree has commits the remote lacks (not yet pushed).
	Ahead = "ahead"
	// NoRemoteBranch: nothing has been pushed to the branch yet.
	NoRemoteBranch = "no-remote-branch"
)

// SyncResult says what Sync did.
type SyncResult struct {
	Action string `json:"action"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Sync fetches the tree's branch and fast-forwards the tree to what was
// pushed, so a gate reads the agent's latest work. It never merges, resets
// or forces: a diverged branch, or local changes a fast-forward would
// overwrite, come back as a *ConflictError.
func (t *Tree) Sync(ctx context.Context) (SyncResult, error) {
	m := t.m
	if err := t.onBranch(ctx); err != nil {
		return SyncResult{}, err
	}
	remote, err := t.fetch(ctx)
	if err != nil {
		return SyncResult{}, err
	}
	local, err := m.revParse(ctx, t.Dir, "HEAD")
	if err != nil {
		return SyncResult{}, err
	}
	res := SyncResult{Before: local, After: local}
	switch {
	case remote == "":
		res.Action = NoRemoteBranch
		return res, nil
	case remote == local:
		res.Action = UpToDate
		return res, nil
	}
	behind, err := m.isAncestor(ctx, t.Dir, local, remote)
	if err != nil {
		return res, err
	}
	if !behind {
		ahead, err := m.isAncestor(ctx, t.Dir, remote, local)
		if err != nil {
			return res, err
		}
		if ahead {
			res.Action = Ahead
			return res, nil
		}
		return res, &ConflictError{Branch: t.Branch, Dir: t.Dir, Kind: Diverged, Local: local, Remote: remote}
	}
	if _, err := m.git(ctx, t.Dir, nil, "merge", "--ff-only", "--quiet", remote); err != nil {
		if ge, ok := err.(*gitError); ok && containsAny(ge.res.err, "would be overwritten", "untracked working tree files") {
			return res, &ConflictError{Branch: t.Branch, Dir: t.Dir, Kind: LocalChanges, Local: local, Remote: remote,
				Files: overwrittenFiles(ge.res.err), Detail: lastLines(ge.res.err, 3)}
		}
		return res, fmt.Errorf("fast-forward %s: %w", t.Branch, err)
	}
	res.Action, res.After = FastForwarded, remote
	return res, nil
}

// fetch updates the remote-tracking ref of the tree's branch and returns
// the remote's commit ("" when the remote has no such branch).
func (t *Tree) fetch(ctx context.Context) (string, error) {
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	ref := m.remoteRef(t.Branch)
	_, err := m.git(ctx, t.Dir, nil, "fetch", "--quiet", m.remote, "+refs/heads/"+t.Branch+":"+ref)
	if err != nil {
		if ge, ok := err.(*gitError); ok && strings.Contains(ge.res.err, "couldn't find remote ref") {
			return "", nil
		}
		return "", fmt.Errorf("fetch %s: %w", t.Branch, err)
	}
	return m.revParse(ctx, t.Dir, ref)
}

// onBranch checks the tree still has its branch checked out.
func (t *Tree) onBranch(ctx context.Context) error {
	head, err := t.m.git(ctx, t.Dir, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || head.out != t.Branch {
		return fmt.Errorf("work tree %s has %q checked out, not %s; switch it back before the loop syncs it", t.Dir, head.out, t.Branch)
	}
	return nil
}
