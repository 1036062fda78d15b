package workspace

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateBranchAgreesWithGit(t *testing.T) {
	env := testEnv(t)
	dir := t.TempDir()
	gitT(t, env, dir, "init", "--quiet")
	names := []string{
		"the-loop/issue-12-fix-login", "feature/x", "a/b/c", "x.lock.y", "@x", "a@b", "ünïcode", "v1.2",
		"", "a..b", "a/.b", ".hidden", "a.lock", "a/b.lock/c", "-x", "x/", "/x", "x.", "a//b", "a b", "a~b", "a^b",
		"a:b", "a?b", "a*b", "a[b", "a\\b", "a@{b", "a\x01b", "a\x7fb", "tab\tname",
	}
	for _, n := range names {
		cmd := exec.Command("git", "-C", dir, "check-ref-format", "--branch", n)
		cmd.Env = env
		gitOK := cmd.Run() == nil
		err := ValidateBranch(n)
		assert.Equal(t, gitOK, err == nil, "branch %q: git says ok=%v, ValidateBranch says %v", n, gitOK, err)
	}
	// `--branch` expands these shorthands instead of checking them; as
	// branch names git refuses both.
	assert.Error(t, ValidateBranch("HEAD"), "HEAD is never an item branch")
	assert.Error(t, ValidateBranch("@"), "a lone @ is never an item branch")
	// git accepts these; the loop refuses names that read as another.
	for _, n := range []string{"the-loop/issue-1\u202e-fix", "the-loop/issue\u200b-1", "feature/\u2066x\u2069"} {
		assert.ErrorContains(t, ValidateBranch(n), "invisible or bidirectional", "%q", n)
	}
}

func TestBranchFor(t *testing.T) {
	tests := []struct {
		id, title, want, wantErr string
	}{
		{"issue-12", "Fix the login page!", "the-loop/issue-12-fix-the-login-page", ""},
		{"PROJ-7", "  Über   café -- déjà vu ", "the-loop/PROJ-7-ber-caf-d-j-vu", ""},
		{"issue-3", "", "the-loop/issue-3", ""},
		{"issue-3", "!!!", "the-loop/issue-3", ""},
		{"issue-4", "a very long title that goes on and on and on beyond forty characters", "the-loop/issue-4-a-very-long-title-that-goes-on-and-on-an", ""},
		{"../etc", "x", "", "work item id"},
		{"issue 5", "x", "", "work item id"},
		{"x.lock", "x", "", "work item id"},
		{"", "x", "", "work item id"},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.title, func(t *testing.T) {
			got, err := BranchFor(tt.id, tt.title)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(Slug(tt.title)), maxSlug)
		})
	}
}
