package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testrepo"
)

// rig is a bare remote, a seeded main branch, and the poller's clone.
type rig struct {
	remote string
	source string
	env    []string
	m      *Manager
	root   string
}

// testEnv is git's environment in tests: the real PATH, a private HOME
// and no system config, so the machine's git settings never matter.
func testEnv(t testing.TB) []string {
	home := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
}

// gitT runs git for the test itself (seeding, playing the agent).
func gitT(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Agent", "-c", "user.email=agent@example.invalid",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

func newRig(t testing.TB) *rig {
	t.Helper()
	base := t.TempDir()
	r := &rig{remote: filepath.Join(base, "remote.git"), source: filepath.Join(base, "source"), env: testEnv(t), root: filepath.Join(base, "trees")}
	testrepo.Seed(t, base, map[string]string{"README.md": "hello\n", "docs/specs/issue-1/requirements.md": "# Requirements\n"})
	m, err := New(context.Background(), Options{Source: r.source, Root: r.root, Env: r.env,
		Identity: Identity{Name: "the-loop", Email: "loop@example.invalid"}})
	require.NoError(t, err)
	r.m = m
	return r
}

// agentClone is a separate clone standing in for an agent that pushes.
func (r *rig) agentClone(t testing.TB, branch string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent")
	gitT(t, r.env, filepath.Dir(dir), "clone", "--quiet", r.remote, dir)
	gitT(t, r.env, dir, "checkout", "--quiet", "-B", branch, "origin/"+branch)
	return dir
}

// agentPush commits content to path on branch from a fresh clone.
func (r *rig) agentPush(t testing.TB, branch, path, content string) string {
	t.Helper()
	dir := r.agentClone(t, branch)
	writeFile(t, dir, path, content)
	gitT(t, r.env, dir, "add", "-A")
	gitT(t, r.env, dir, "commit", "--quiet", "-m", "agent: "+path)
	gitT(t, r.env, dir, "push", "--quiet", "origin", "HEAD:refs/heads/"+branch)
	return gitT(t, r.env, dir, "rev-parse", "HEAD")
}

// remoteHead returns the remote's commit of branch.
func (r *rig) remoteHead(t testing.TB, branch string) string {
	return gitT(t, r.env, r.remote, "rev-parse", "refs/heads/"+branch)
}

func (r *rig) remoteFile(t testing.TB, branch, path string) string {
	return gitT(t, r.env, r.remote, "show", "refs/heads/"+branch+":"+path)
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	require.NoError(t, err)
	return string(b)
}

// publish pushes the tree's branch as the loop does after a session's
// commits.
func (r *rig) publish(t testing.TB, tree *Tree) {
	t.Helper()
	_, err := tree.Push(context.Background())
	require.NoError(t, err)
}

// TestMain removes the repositories the rigs were copied from.
func TestMain(m *testing.M) {
	code := m.Run()
	testrepo.Clean()
	os.Exit(code)
}
