package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
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
	copySeeded(t, base)
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

// seeded is the bare remote and the poller's clone every rig starts from,
// made with git once per test process; each rig copies it instead of
// running the same ten git processes again.
var seeded struct {
	once sync.Once
	dir  string
	err  error
}

// seed makes, under dir, the bare remote.git — main holds README.md and
// docs/specs/issue-1/requirements.md in one commit, and is its HEAD — and
// source, the poller's clone of it.
func seed(dir string) error {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	remote, work := filepath.Join(dir, "remote.git"), filepath.Join(dir, "seed")
	git := func(in string, args ...string) error {
		cmd := exec.Command("git", append([]string{"-C", in, "-c", "user.name=Agent", "-c", "user.email=agent@example.invalid",
			"-c", "init.defaultBranch=main"}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for name, body := range map[string]string{"README.md": "hello\n", "docs/specs/issue-1/requirements.md": "# Requirements\n"} {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	steps := []struct {
		in   string
		args []string
	}{
		{dir, []string{"init", "--quiet", "--bare", remote}},
		{work, []string{"init", "--quiet"}},
		{work, []string{"add", "-A"}},
		{work, []string{"commit", "--quiet", "-m", "seed"}},
		{work, []string{"push", "--quiet", remote, "HEAD:refs/heads/main"}},
		{remote, []string{"symbolic-ref", "HEAD", "refs/heads/main"}},
		{dir, []string{"clone", "--quiet", remote, filepath.Join(dir, "source")}},
	}
	for _, s := range steps {
		if err := git(s.in, s.args...); err != nil {
			return err
		}
	}
	return os.RemoveAll(work)
}

// copySeeded copies the seeded remote and clone into base (base/remote.git,
// base/source), the clone's origin pointing at the copy.
func copySeeded(t testing.TB, base string) {
	t.Helper()
	seeded.once.Do(func() {
		if seeded.dir, seeded.err = os.MkdirTemp("", "workspace-seed-"); seeded.err == nil {
			seeded.err = seed(seeded.dir)
		}
	})
	require.NoError(t, seeded.err, "seed the rig's repositories")
	require.NoError(t, os.CopyFS(base, os.DirFS(seeded.dir)))
	config := filepath.Join(base, "source", ".git", "config")
	b, err := os.ReadFile(config)
	require.NoError(t, err)
	from, to := filepath.Join(seeded.dir, "remote.git"), filepath.Join(base, "remote.git")
	require.Contains(t, string(b), "url = "+from+"\n")
	require.NoError(t, os.WriteFile(config, []byte(strings.ReplaceAll(string(b), "url = "+from+"\n", "url = "+to+"\n")), 0o644))
}

// TestMain removes the seeded repositories once every test ran.
func TestMain(m *testing.M) {
	code := m.Run()
	if seeded.dir != "" {
		_ = os.RemoveAll(seeded.dir)
	}
	os.Exit(code)
}
