package integrations

import "context"

// IssueLister is implemented by providers the poller can watch: it lists
// the open issues of a repository (GitHub) or project (Jira).
type IssueLister interface {
	// ListOpenIssues returns open issues, newest first; label filters
	// when non-empty. Pull requests are excluded.
	ListOpenIssues(ctx context.Context, container, label string) ([]Issue, error)
}
