package scenario

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	l.Kick()
}

// mirror plays GitHub's side of the bare remote while the poller runs:
// every branch pushed there becomes the fake GitHub's branch too (moving
// the open pull requests from it), a CI run named build passes on every
// new head commit. It looks at the remote's refs with git only when their
// files changed. It does not wake the poller: a push comes from a session,
// whose end wakes it.
func (l *Loop) mirror(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	seen := map[string]string{}
	var last string
	for {
		if sig := refsSignature(l.Remote); sig != last {
			last = sig
			l.mirrorRefs(seen)
		}
		select {
		case <-stop:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mirrorRefs copies the remote's branches that moved into the fake GitHub.
func (l *Loop) mirrorRefs(seen map[string]string) {
	out, err := l.git(context.Background(), l.Remote, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
	if err != nil {
		return
	}
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

// refsSignature is the name, size and modification time of every file
// that holds the bare repository's branches (loose refs and packed-refs):
// it changes whenever a push moves one.
func refsSignature(gitDir string) string {
	var b strings.Builder
	add := func(p string, fi fs.FileInfo) {
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
	}
	if fi, err := os.Stat(filepath.Join(gitDir, "packed-refs")); err == nil {
		add("packed-refs", fi)
	}
	_ = filepath.WalkDir(filepath.Join(gitDir, "refs", "heads"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			add(p, fi)
		}
		return nil
	})
	return b.String()
}
