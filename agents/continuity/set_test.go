package continuity

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizeRemote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://github.com/Acme/Widgets.git", "github.com/Acme/Widgets"},
		{"https://GitHub.com/acme/widgets", "github.com/acme/widgets"},
		{"git@github.com:acme/widgets.git", "github.com/acme/widgets"},
		{"ssh://git@github.com:22/acme/widgets.git", "github.com/acme/widgets"},
		{"https://x-access-token:s3cr3t@github.com/acme/widgets.git", "github.com/acme/widgets"},
		{"https://gitlab.example.com/group/sub/widgets/", "gitlab.example.com/group/sub/widgets"},
		{"file:///srv/git/widgets.git", "/srv/git/widgets"},
		{"/srv/git/widgets.git", "/srv/git/widgets"},
		{"  ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := NormalizeRemote(tt.in)
			assert.Equal(t, tt.want, got)
			assert.NotContains(t, got, "s3cr3t")
		})
	}
}

func TestOpenIdentity(t *testing.T) {
	withRemote := gitRepo(t, "git@github.com:acme/widgets.git")
	s, err := Open(filepath.Join(withRemote, "."))
	require.NoError(t, err)
	assert.Equal(t, "github.com/acme/widgets", s.Identity)

	noRemote := gitRepo(t, "")
	sub := filepath.Join(noRemote, "deep")
	require.NoError(t, mkdir(sub))
	s, err = Open(sub)
	require.NoError(t, err)
	top, err := filepath.EvalSymlinks(noRemote)
	require.NoError(t, err)
	assert.Equal(t, top, s.Root, "a subdirectory resolves to the top level")
	assert.Equal(t, top, s.Identity, "without a remote the identity is the top-level path")
	assert.Equal(t, filepath.Join(top, ".handoff", "continuity", "death-point.md"), s.DeathPointPath())
}

func TestOpenOutsideGit(t *testing.T) {
	_, err := Open(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not inside a git repository")
	assert.Contains(t, err.Error(), "--repo")
}

func TestDetectHarness(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"THE_LOOP_HARNESS": "my-agent", "CLAUDECODE": "1"}, "my-agent"},
		{map[string]string{"CLAUDECODE": "1"}, "claude-code"},
		{map[string]string{"CODEX_HOME": "/x"}, "codex"},
		{map[string]string{}, "shell"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, DetectHarness(func(k string) string { return tt.env[k] }))
		})
	}
	assert.Equal(t, "shell", DetectHarness(nil))
}
