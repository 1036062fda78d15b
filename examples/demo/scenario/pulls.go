package scenario

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
// the open pull requests from it); the repository's CI runs on a commit
// when its checks are first read (ciOnce). It looks at the remote's
// refs with git only when their files changed. It does not wake the
// poller: a push comes from a session, whose end wakes it.
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

// Inner is the record of the loop of item id's pull request n, as the
// item's working tree holds it (nil before it starts).
func (l *Loop) Inner(id string, n int) map[string]any {
	return readJSON(filepath.Join(l.Tree(id), "docs", "specs", id, "pr-loops", fmt.Sprintf("pr-%d", n), "work-item-state.json"))
}

// FixRounds are the times the loop sent item id's pull request n back to
// be fixed, oldest first.
func (l *Loop) FixRounds(id string, n int) []map[string]any {
	var out []map[string]any
	rounds, _ := l.Inner(id, n)["fixRounds"].([]any)
	for _, r := range rounds {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// Prompt is the prompt session id was launched with.
func (l *Loop) Prompt(id string) (string, error) {
	dir := filepath.Join(l.State, "sessions", id)
	b, err := os.ReadFile(filepath.Join(dir, "box", "prompt.md")) // a confined session's
	if errors.Is(err, fs.ErrNotExist) {
		b, err = os.ReadFile(filepath.Join(dir, "prompt.md"))
	}
	return string(b), err
}

// CheckClone clones branch of the remote afresh and runs `the-loop check
// --all --recompute --fail-on block` there as a CI would: an empty config,
// a new database and a home without the poller's private key, so only the
// public key the repository commits can verify the record. It returns what
// check printed, and an error when it did not pass.
func (l *Loop) CheckClone(ctx context.Context, branch string) (string, error) {
	dir, err := os.MkdirTemp(l.Dir, "clone-")
	if err != nil {
		return "", err
	}
	home := filepath.Join(dir, "home")
	clone := filepath.Join(dir, "widgets")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", err
	}
	if _, err := l.git(ctx, dir, "clone", "--quiet", "--branch", branch, l.Remote, clone); err != nil {
		return "", err
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, l.TheLoop, "check", "--all", "--recompute", "--fail-on", "block", "--repo", clone, "--config", cfg, "--db", filepath.Join(dir, "ci.db"))
	cmd.Env, cmd.Dir = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, clone
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("the-loop check in a fresh clone of %s: %v:\n%s", branch, err, out)
	}
	return string(out), nil
}
