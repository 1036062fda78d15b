package workspace

import (
	"fmt"
	"strings"
)

// Conflict kinds.
const (
	// Diverged: the local branch and the remote each have commits the
	// other lacks.
	Diverged = "diverged"
	// LocalChanges: uncommitted changes in the tree stop a fast-forward.
	LocalChanges = "local-changes"
	// MergeConflict: integrating the remote before a push conflicted.
	MergeConflict = "merge-conflict"
	// MissingFiles: files the branch holds are gone from the tree (deleted
	// under the loop, never by a commit), so it cannot be read as the
	// branch's work.
	MissingFiles = "missing-files"
)

// ConflictError reports that the tree and its remote branch cannot be
// brought together without overwriting someone's work. The loop never
// forces or resets; a human resolves it.
type ConflictError struct {
	Branch string
	Dir    string
	Kind   string
	Local  string // local commit
	Remote string // remote commit
	Files  []string
	Detail string
}

func (e *ConflictError) Error() string {
	if e.Kind == MissingFiles {
		return fmt.Sprintf("the tree %s of branch %s is missing %d file(s) the branch holds (%s): it was deleted in part, not by a commit",
			e.Dir, e.Branch, len(e.Files), strings.Join(first(e.Files, 5), ", "))
	}
	var what string
	switch e.Kind {
	case Diverged:
		what = fmt.Sprintf("has diverged from the remote (local %s, remote %s)", short(e.Local), short(e.Remote))
	case LocalChanges:
		what = "cannot fast-forward: uncommitted changes in the tree would be overwritten"
	case MergeConflict:
		what = fmt.Sprintf("conflicts with what was pushed (remote %s)", short(e.Remote))
	default:
		what = e.Kind
	}
	msg := fmt.Sprintf("branch %s %s", e.Branch, what)
	if len(e.Files) > 0 {
		msg += " in " + strings.Join(e.Files, ", ")
	}
	return msg + fmt.Sprintf("; the loop never forces or resets: resolve it by hand in %s (merge or rebase, then push)", e.Dir)
}

// PushRejectedError reports that the remote refused a push.
type PushRejectedError struct {
	Branch string
	Reason string
	Detail string
}

func (e *PushRejectedError) Error() string {
	msg := fmt.Sprintf("push of %s was refused: %s", e.Branch, e.Reason)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg + "; the loop never forces a push: fix the remote's rule or the branch, and the next cycle pushes again"
}

// DirtyError reports that removing a tree would lose work.
type DirtyError struct {
	Dir      string
	Changes  []string
	Unpushed int
}

func (e *DirtyError) Error() string {
	var parts []string
	if len(e.Changes) > 0 {
		parts = append(parts, fmt.Sprintf("%d uncommitted change(s) (%s)", len(e.Changes), strings.Join(first(e.Changes, 5), ", ")))
	}
	if e.Unpushed > 0 {
		parts = append(parts, fmt.Sprintf("%d unpushed commit(s)", e.Unpushed))
	}
	return fmt.Sprintf("working tree %s holds %s; push or discard them, or remove it with discard", e.Dir, strings.Join(parts, " and "))
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "(none)"
	}
	return sha
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string(nil), s[:n]...), "…")
	}
	return s
}
