package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProgressCountsTheAgentsCommitsNotTheLoops(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	commit := func(name, msg string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(msg), 0o644))
		git("add", name)
		git("commit", "--quiet", "-m", msg)
	}
	git("init", "--quiet")
	commit("a", "seed")
	p := Progress{}
	start, err := p.Head(ctx, dir)
	require.NoError(t, err)

	n, err := p.AgentCommits(ctx, dir, start)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing since the start")
	commit("b", Message("issue-1: design-approval pass", "design-approval"))
	n, err = p.AgentCommits(ctx, dir, start)
	require.NoError(t, err)
	assert.Zero(t, n, "the loop's own marked commit is not the agent's")
	commit("c", "Work design of issue-1\n\nMentions The-Loop-Gate: in its body, not as a trailer line")
	n, err = p.AgentCommits(ctx, dir, start)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a commit naming the trailer in its text is still the agent's")
	commit("d", "Work design of issue-1")
	n, err = p.AgentCommits(ctx, dir, start)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the agent's two commits")

	_, err = p.AgentCommits(ctx, dir, "0123456789012345678901234567890123456789")
	assert.Error(t, err, "an unknown start is an error, never zero")
	_, err = p.Head(ctx, t.TempDir())
	assert.Error(t, err)
}
