package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
// pushed (by a human, a handoff, another poller), so a gate reads the
// latest work. It never merges, resets or forces: a diverged branch, local
// changes a fast-forward would overwrite, or files the branch holds that
// are gone from the tree (deleted under the loop) come back as a
// *ConflictError.
func (t *Tree) Sync(ctx context.Context) (SyncResult, error) {
	if err := t.onBranch(ctx); err != nil {
		return SyncResult{}, err
	}
	remote, err := t.fetch(ctx)
	if err != nil {
		return SyncResult{}, err
	}
	local, err := t.head(ctx)
	if err != nil {
		return SyncResult{}, err
	}
	res := SyncResult{Before: local, After: local}
	if gone, err := t.missingFiles(ctx); err != nil {
		return res, err
	} else if len(gone) > 0 {
		return res, &ConflictError{Branch: t.Branch, Dir: t.Dir, Kind: MissingFiles, Local: local, Remote: remote, Files: gone}
	}
	switch {
	case remote == "":
		res.Action = NoRemoteBranch
		return res, nil
	case remote == local:
		res.Action = UpToDate
		return res, nil
	}
	behind, err := t.isAncestor(ctx, local, remote)
	if err != nil {
		return res, err
	}
	if !behind {
		ahead, err := t.isAncestor(ctx, remote, local)
		if err != nil {
			return res, err
		}
		if ahead {
			res.Action = Ahead
			return res, nil
		}
		return res, &ConflictError{Branch: t.Branch, Dir: t.Dir, Kind: Diverged, Local: local, Remote: remote}
	}
	if _, err := t.git(ctx, nil, "merge", "--ff-only", "--quiet", remote); err != nil {
		if ge, ok := err.(*gitError); ok && containsAny(ge.res.err, "would be overwritten", "untracked working tree files") {
			return res, &ConflictError{Branch: t.Branch, Dir: t.Dir, Kind: LocalChanges, Local: local, Remote: remote,
				Files: overwrittenFiles(ge.res.err), Detail: lastLines(ge.res.err, 3)}
		}
		return res, fmt.Errorf("fast-forward %s: %w", t.Branch, err)
	}
	res.Action, res.After = FastForwarded, remote
	return res, nil
}

// missingFiles lists the files the tree's index holds that are gone from
// the tree itself: deleted without a commit.
func (t *Tree) missingFiles(ctx context.Context) ([]string, error) {
	r, err := t.git(ctx, nil, "ls-files", "--deleted", "-z")
	if err != nil {
		return nil, fmt.Errorf("list the files missing from %s: %w", t.Dir, err)
	}
	var out []string
	for _, f := range strings.Split(r.out, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out, nil
}

// fetch updates the source's remote-tracking ref of the tree's branch —
// the source's refs are the poller's alone, so what the remote holds is
// read there, never from the tree's repository — and returns the remote's
// commit ("" when the remote has no such branch). The tree's repository
// gets the same ref, for a session's git status.
func (t *Tree) fetch(ctx context.Context) (string, error) {
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	ref := m.remoteRef(t.Branch)
	_, err := m.git(ctx, m.source, nil, "fetch", "--quiet", "--no-tags", m.remote, "+refs/heads/"+t.Branch+":"+ref)
	if err != nil {
		if ge, ok := err.(*gitError); ok && strings.Contains(ge.res.err, "couldn't find remote ref") {
			return "", nil
		}
		return "", fmt.Errorf("fetch %s: %w", t.Branch, err)
	}
	sha, err := m.revParse(ctx, m.source, ref)
	if err == nil && sha != "" {
		t.note(ctx, sha)
	}
	return sha, err
}

// note records the remote's commit of the branch in the tree's repository
// (refs/remotes/<remote>/<branch>), for the session's eyes only. A commit
// this manager already recorded there is not written again: a push and the
// sync after it name the same one.
func (t *Tree) note(ctx context.Context, sha string) {
	repo := t.pin.GitDir
	if t.m.notes.has(repo, t.Branch, sha) {
		return
	}
	if _, err := t.m.git(ctx, repo, inRepo(repo), "update-ref", t.m.remoteRef(t.Branch), sha); err == nil {
		t.m.notes.set(repo, t.Branch, sha)
	}
}

// sessionNotes remembers the remote commit each tree repository's branch
// was last told of (note); a repository made again starts with none.
type sessionNotes struct {
	mu   sync.Mutex
	shas map[[2]string]string // {repository, branch} → commit
}

func (n *sessionNotes) has(repo, branch, sha string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return sha != "" && n.shas[[2]string{repo, branch}] == sha
}

func (n *sessionNotes) set(repo, branch, sha string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.shas == nil {
		n.shas = map[[2]string]string{}
	}
	n.shas[[2]string{repo, branch}] = sha
}

// forget drops what repo was told: it is made again, or removed.
func (n *sessionNotes) forget(repo string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for k := range n.shas {
		if k[0] == repo {
			delete(n.shas, k)
		}
	}
}

// head is the commit the tree's branch holds in its repository.
func (t *Tree) head(ctx context.Context) (string, error) {
	return t.m.revParse(ctx, t.Dir, "HEAD", t.pin.Env()...)
}

// onBranch checks the tree still has its branch checked out, after
// restoring what points the tree at its repository (restore): every
// operation of the loop on a tree starts here.
func (t *Tree) onBranch(ctx context.Context) error {
	if err := t.restore(); err != nil {
		return err
	}
	// The loop's git reads the repository's HEAD, which always names the
	// branch; what the tree has checked out is its administrative
	// directory's HEAD, read here as a plain file (never followed).
	checkedOut := ""
	if t.pin.Pinned() {
		b, err := os.ReadFile(filepath.Join(t.pin.Admin, "HEAD"))
		if err != nil {
			return fmt.Errorf("work tree %s: read what it has checked out: %w", t.Dir, err)
		}
		ref := strings.TrimSpace(string(b))
		checkedOut = strings.TrimPrefix(ref, "ref: refs/heads/")
		if !strings.HasPrefix(ref, "ref: refs/heads/") {
			checkedOut = ref // detached
		}
	} else {
		head, err := t.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil {
			head.out = ""
		}
		checkedOut = head.out
	}
	if checkedOut != t.Branch {
		return fmt.Errorf("work tree %s has %q checked out, not %s; switch it back before the loop syncs it", t.Dir, checkedOut, t.Branch)
	}
	return nil
}
