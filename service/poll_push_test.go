package service

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session commits and never pushes: its tree's repository has no remote
// (and its account no credentials). The poller's next cycle pushes the
// item's branch with its own, from the source checkout.
func TestThePollerPushesWhatASessionCommitted(t *testing.T) {
	t.Parallel()
	r := newPRSessionRig(t)
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	tree := r.itemTree()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	branch := gitOut(t, env, tree, "symbolic-ref", "--short", "HEAD")
	writeFile(t, filepath.Join(tree, "docs", "specs", "issue-1", "notes.md"), "the session's notes\n")
	gitT(t, env, tree, "add", "--", "docs/specs/issue-1/notes.md")
	gitT(t, env, tree, "commit", "--quiet", "-m", "notes")
	head := gitOut(t, env, tree, "rev-parse", "HEAD")

	push := exec.Command("git", "-C", tree, "push", "--quiet")
	push.Env = env
	out, err := push.CombinedOutput()
	require.Error(t, err, "a session cannot push: %s", out)
	assert.Contains(t, string(out), "No configured push destination")

	r.cycle()
	remote := filepath.Join(filepath.Dir(r.trees), "widgets.git")
	assert.Equal(t, head, gitOut(t, env, remote, "rev-parse", "refs/heads/"+branch), "the poller pushed the session's commit")
	assert.Equal(t, "the session's notes", gitOut(t, env, remote, "show", "refs/heads/"+branch+":docs/specs/issue-1/notes.md"))
}

func gitOut(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}
