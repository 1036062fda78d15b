package scenario

import (
	"context"
	"strings"
	"time"
)

// Repo is the demo repository on the fake GitHub.
const Repo = "octo/widgets"

// PullRequest is the number of item id's pull request in the demo
// repository, as its record links it (0 before it is opened).
func (l *Loop) PullRequest(id string) int {
	prs, _ := l.StateOf(id)["pullRequests"].([]any)
	for _, p := range prs {
		m, _ := p.(map[string]any)
		if repo, _ := m["repo"].(string); repo == Repo {
			n, _ := m["number"].(float64)
			return int(n)
		}
	}
	return 0
}

// Approve submits an approving review of pull request n as the human.
func (l *Loop) Approve(n int, body string) {
	l.GitHub.AddReview(Repo, n, Human, "OWNER", "APPROVED", body)
}

// mirror plays GitHub's side of the bare remote while the poller runs:
// every branch pushed there becomes the fake GitHub's branch too (moving
// the open pull requests from it), and a CI run named build passes on
// every new head commit.
func (l *Loop) mirror(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	seen := map[string]string{}
	for {
		out, err := l.git(context.Background(), l.Remote, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
		if err == nil {
			for _, line := range strings.Split(out, "\n") {
				branch, sha, ok := strings.Cut(line, " ")
				if !ok || seen[branch] == sha {
					continue
				}
				seen[branch] = sha
				l.GitHub.SetCheckRun(Repo, sha, "build", "completed", "success", "https://ci.example.invalid/build/"+sha[:7])
				l.GitHub.PushBranch(Repo, branch, sha)
			}
		}
		select {
		case <-stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}
