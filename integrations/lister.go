package integrations

import "context"

// IssueLister is implemented by providers the poller can watch: it lists
// the open issues of a repository (GitHub) or project (Jira).
type IssueLister interface {
	// ListOpenIssues returns open issues, newest first; label filters
	// when non-empty. Where the system lists pull requests among the issues
	// (GitHub, with no label), they come too, marked Pull: the poller reads
	// their conversation counts there and arms none of them.
	ListOpenIssues(ctx context.Context, container, label string) ([]Issue, error)
}
