package workspace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MarkTrailer is the trailer that marks a commit as the loop's own.
const MarkTrailer = "The-Loop-Gate"

// Change is what a gate wrote and wants published.
type Change struct {
	// Paths are the files written, relative to the tree's root. Only these
	// are committed; anything else in the tree is left alone.
	Paths []string
	// Subject is the commit's first line.
	Subject string
	// Gate names the node that wrote the change; it goes in the trailer.
	Gate string
}

// CommitResult says what CommitAndPush did.
type CommitResult struct {
	// Commit is the new commit ("" when the paths had no changes).
	Commit string `json:"commit,omitempty"`
	// Pushed reports that the branch was pushed.
	Pushed bool `json:"pushed"`
	// Merged reports that the remote had moved on and was merged first.
	Merged bool `json:"merged"`
}

// Message returns a commit message marked as the loop's own.
func Message(subject, gate string) string {
	return strings.TrimSpace(subject) + "\n\n" + MarkTrailer + ": " + gate + "\n"
}

// IsMarked reports whether a commit message carries the loop's trailer.
func IsMarked(message string) bool {
	for _, l := range strings.Split(message, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), MarkTrailer+":") {
			return true
		}
	}
	return false
}

// CommitAndPush commits the named paths (and only them) with a marked
// message and pushes the branch. Other staged or unstaged changes in the
// tree stay as they were. When the remote moved on, its commits are merged
// (never rebased or forced) and the push is tried once more; a merge that
// conflicts is aborted and returned as a *ConflictError, and a refusal by
// the remote as a *PushRejectedError, with the local commit kept.
func (t *Tree) CommitAndPush(ctx context.Context, c Change) (CommitResult, error) {
	var res CommitResult
	if strings.TrimSpace(c.Subject) == "" || strings.TrimSpace(c.Gate) == "" {
		return res, errors.New("commit: give a subject and the gate that wrote the change")
	}
	paths, err := t.cleanPaths(c.Paths)
	if err != nil {
		return res, err
	}
	if err := t.onBranch(ctx); err != nil {
		return res, err
	}
	if res.Commit, err = t.commitPaths(ctx, paths, Message(c.Subject, c.Gate)); err != nil {
		return res, err
	}
	return t.push(ctx, res)
}

// Push publishes the tree's commits the remote lacks (a push refused
// earlier), merging the remote once when it moved on, as CommitAndPush
// does; nothing is forced.
func (t *Tree) Push(ctx context.Context) (CommitResult, error) {
	if err := t.onBranch(ctx); err != nil {
		return CommitResult{}, err
	}
	return t.push(ctx, CommitResult{})
}

// cleanPaths checks every path stays inside the tree and outside .git.
func (t *Tree) cleanPaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("commit: name the paths the gate wrote")
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		clean := filepath.ToSlash(filepath.Clean(p))
		first, _, _ := strings.Cut(clean, "/")
		switch {
		case p == "" || filepath.IsAbs(p) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
			return nil, fmt.Errorf("commit: path %q must be relative and inside the work tree", p)
		case strings.EqualFold(first, ".git"):
			return nil, fmt.Errorf("commit: path %q is inside .git", p)
		}
		out[i] = clean
	}
	return out, nil
}

// commitPaths commits exactly the named paths on top of HEAD through a
// private index, then brings the real index's entries for those paths up
// to date. It returns "" when the paths hold no change.
func (t *Tree) commitPaths(ctx context.Context, paths []string, msg string) (string, error) {
	m := t.m
	gitDir, err := m.git(ctx, t.Dir, nil, "rev-parse", "--path-format=absolute", "--git-dir")
	if err != nil {
		return "", err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	index := filepath.Join(gitDir.out, "the-loop-index-"+hex.EncodeToString(rnd[:]))
	defer func() { _ = os.Remove(index) }()
	priv := []string{"GIT_INDEX_FILE=" + index}
	if _, err := m.git(ctx, t.Dir, priv, "read-tree", "HEAD"); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if _, err := m.git(ctx, t.Dir, priv, append([]string{"add", "--all", "--"}, paths...)...); err != nil {
		return "", fmt.Errorf("commit: stage %s: %w", strings.Join(paths, ", "), err)
	}
	if _, err := m.git(ctx, t.Dir, priv, "diff", "--cached", "--quiet"); err == nil {
		return "", nil
	} else if exitCode(err) != 1 {
		return "", fmt.Errorf("commit: %w", err)
	}
	if _, err := m.git(ctx, t.Dir, priv, "commit", "--quiet", "--no-verify", "-m", msg); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if _, err := m.git(ctx, t.Dir, nil, append([]string{"reset", "--quiet", "--"}, paths...)...); err != nil {
		return "", fmt.Errorf("commit: refresh the index: %w", err)
	}
	return m.revParse(ctx, t.Dir, "HEAD")
}

// push publishes HEAD to the branch, merging the remote once if it moved.
// After a fresh commit there is something to publish, so it pushes at once
// (a refusal because the remote moved on fetches and merges); otherwise it
// first asks the remote whether anything is missing there.
func (t *Tree) push(ctx context.Context, res CommitResult) (CommitResult, error) {
	m := t.m
	if res.Commit == "" {
		remote, err := t.fetch(ctx)
		if err != nil {
			return res, err
		}
		local, err := m.revParse(ctx, t.Dir, "HEAD")
		if err != nil {
			return res, err
		}
		if remote == local {
			return res, nil // nothing to publish
		}
	}
	for attempt := 0; ; attempt++ {
		perr := t.pushOnce(ctx)
		if perr == nil {
			res.Pushed = true
			return res, nil
		}
		var rej *PushRejectedError
		if !errors.As(perr, &rej) || rej.Reason != reasonNonFastForward || attempt > 0 {
			return res, perr
		}
		if err := t.mergeRemote(ctx); err != nil {
			return res, err
		}
		res.Merged = true
	}
}

const reasonNonFastForward = "the remote has commits this tree lacks (non-fast-forward)"

func (t *Tree) pushOnce(ctx context.Context) error {
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.git(ctx, t.Dir, nil, "push", "--porcelain", m.remote, "HEAD:refs/heads/"+t.Branch)
	if err == nil {
		return nil
	}
	ge, ok := err.(*gitError)
	if !ok {
		return fmt.Errorf("push %s: %w", t.Branch, err)
	}
	all := ge.res.out + "\n" + ge.res.err
	switch {
	case containsAny(all, "[rejected]", "non-fast-forward", "fetch first"):
		return &PushRejectedError{Branch: t.Branch, Reason: reasonNonFastForward}
	case containsAny(all, "[remote rejected]"):
		detail := remoteReason(all)
		if said := remoteSaid(ge.res.err); said != "" {
			detail += "; the remote said: " + said
		}
		return &PushRejectedError{Branch: t.Branch, Reason: "the remote refused it", Detail: detail}
	}
	return &PushRejectedError{Branch: t.Branch, Reason: "push failed", Detail: lastLines(ge.res.err, 3)}
}

// remoteSaid is what the remote's hooks printed (git's "remote: " lines),
// at most three lines, already scrubbed of secrets.
func remoteSaid(stderr string) string {
	var said []string
	for _, l := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "remote:"); ok && strings.TrimSpace(rest) != "" {
			said = append(said, strings.TrimSpace(rest))
		}
	}
	if len(said) > 3 {
		said = said[len(said)-3:]
	}
	return strings.Join(said, " / ")
}

// remoteReason extracts the parenthesised reason of a refused ref.
func remoteReason(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "[remote rejected]"); i >= 0 {
			return strings.Trim(strings.TrimSpace(l[i+len("[remote rejected]"):]), "()")
		}
	}
	return ""
}

// mergeRemote merges the fetched remote branch into the tree; a conflict
// is aborted, leaving the tree as it was.
func (t *Tree) mergeRemote(ctx context.Context) error {
	m := t.m
	remote, err := t.fetch(ctx)
	if err != nil {
		return err
	}
	local, _ := m.revParse(ctx, t.Dir, "HEAD")
	_, err = m.git(ctx, t.Dir, nil, "merge", "--no-edit", "--no-ff", "--quiet", "-m",
		Message("Merge what was pushed to "+t.Branch, "sync"), remote)
	if err == nil {
		return nil
	}
	files := m.conflictedFiles(ctx, t.Dir)
	if ge, ok := err.(*gitError); ok && len(files) == 0 {
		files = overwrittenFiles(ge.res.err)
	}
	_, _ = m.git(ctx, t.Dir, nil, "merge", "--abort")
	return &ConflictError{Branch: t.Branch, Dir: t.Dir, Kind: MergeConflict, Local: local, Remote: remote, Files: files}
}
