package integrations

import (
	"context"
	"fmt"
	"strings"
)

// Optional operations, implemented through the interfaces below and
// IssueLister.
const (
	// OpLinkPullRequest is implemented through PullRequestLinker.
	OpLinkPullRequest Op = "link-pull-request"
	// OpListOpenIssues is implemented through IssueLister.
	OpListOpenIssues Op = "list-open-issues"
)

// PhaseLabelPrefix starts every phase label (loop:design, loop:complete...).
const PhaseLabelPrefix = "loop:"

// MirrorLabel marks a Jira issue that mirrors a GitHub issue.
const MirrorLabel = "the-loop-mirror"

// PhaseLabel returns the label for a graph phase, e.g. loop:design.
func PhaseLabel(phase string) string { return PhaseLabelPrefix + phase }

// LabelSpec is a repository label definition ensured by EnsureLabels.
type LabelSpec struct {
	Name        string
	Color       string // six hex digits without '#'
	Description string
}

// LabelEnsurer is implemented by providers whose labels must exist in the
// repository before they can be set (OpEnsureLabels).
type LabelEnsurer interface {
	// EnsureLabels creates every label of labels missing from owner/repo;
	// labels that exist are left untouched.
	EnsureLabels(ctx context.Context, owner, repo string, labels []LabelSpec) error
}

// PullRequestLinker is implemented by providers that can link a pull
// request to the issue it works on (OpLinkPullRequest).
type PullRequestLinker interface {
	// LinkPullRequest makes pull request owner/repo#number reference issue
	// (idempotent).
	LinkPullRequest(ctx context.Context, issue Ref, owner, repo string, number int) error
}

// SetPhaseLabel moves the work item to phase: it adds loop:<phase> and removes
// every other loop:* label the ticket carries. Labels outside the prefix are
// never touched.
func SetPhaseLabel(ctx context.Context, p Provider, ref Ref, phase string) error {
	if strings.TrimSpace(phase) == "" {
		return fmt.Errorf("set phase label on %s: the phase is empty", ref)
	}
	want := PhaseLabel(phase)
	issue, err := p.GetIssue(ctx, ref)
	if err != nil {
		return fmt.Errorf("set phase label %s on %s: %w", want, ref, err)
	}
	has := false
	for _, l := range issue.Labels {
		if l == want {
			has = true
			continue
		}
		if strings.HasPrefix(l, PhaseLabelPrefix) {
			if err := p.RemoveLabel(ctx, ref, l); err != nil {
				return fmt.Errorf("set phase label %s on %s: remove %s: %w", want, ref, l, err)
			}
		}
	}
	if has {
		return nil
	}
	if err := p.AddLabels(ctx, ref, []string{want}); err != nil {
		return fmt.Errorf("set phase label %s on %s: %w", want, ref, err)
	}
	return nil
}
