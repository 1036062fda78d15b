package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

func withPrefix(all []string, prefix string) []string {
	var out []string
	for _, l := range all {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func TestCheckFormatGitHubAnnotatesFindingsOnTheirLines(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("from an earlier step\n"), 0o644))
	stdout, stderr, code := runCLI(t, map[string]string{"GITHUB_STEP_SUMMARY": summary},
		"check", "--all", "--recompute", "--fail-on", "block", "--format", "github", "--repo", fixtureRepo(t))
	assert.Equal(t, 1, code, "a blocked item fails --fail-on block")
	assert.Empty(t, stderr, "under --format github warnings are annotations too")
	out := lines(stdout)
	assert.NotContains(t, out, "no signing key", "the fixture's committed public key verifies its decisions")
	assert.Equal(t, []string{
		"::error file=docs/specs/issue-2/requirements.md,line=10,title=issue-2 · requirements-definition (block)::required section is empty: Security considerations",
		"::error file=docs/specs/issue-5/design.md,title=issue-5 · design (block)::required artifact is missing",
	}, withPrefix(out, "::error "))
	assert.Contains(t, out, "::notice title=issue-3 · design-approval (wait)::no authorized feedback yet", "a wait is a notice under --fail-on block")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	example := withPrefix(lines(string(readme)), "::error file=")
	require.Len(t, example, 1, "the README shows one annotation")
	assert.Contains(t, out, example[0], "the README's annotation is what check prints")
	assert.Equal(t, "1/6 work items satisfied, 2 failing the check (--fail-on block)", out[len(out)-1])

	b, err := os.ReadFile(summary)
	require.NoError(t, err)
	md := string(b)
	assert.True(t, strings.HasPrefix(md, "from an earlier step\n### the-loop check\n"), "the summary is appended:\n%s", md)
	assert.Contains(t, md, "**1/6 work items satisfied** · 2 failing the check (`--fail-on block`)")
	assert.Contains(t, md, "| ❌ | `issue-2` | `requirements-definition` | block | required section is empty: Security considerations | `docs/specs/issue-2/requirements.md:10` |\n")
	assert.Contains(t, md, "| ✅ | `issue-4` | `complete` | ok |  |  |\n")
}

func TestCheckFormatGitHubWarnsWithoutAnyKeyAndAnnotatesDrift(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	require.NoError(t, os.Remove(filepath.Join(repo, ".the-loop", "signing.pub")))
	stdout, stderr, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--format", "github", "--repo", repo)
	assert.Equal(t, 1, code, "the record's claims cannot be reproduced: drift")
	assert.Empty(t, stderr)
	out := lines(stdout)
	assert.Contains(t, out, "::warning title=the-loop check::no signing key is configured and .the-loop/signing.pub is absent, so no recorded decision can be verified: under --recompute none is honoured (commit the public key `the-loop keys init` writes, or pin THE_LOOP_SIGNING_PUBLIC_KEY)")
	assert.NotEmpty(t, withPrefix(out, "::error title=issue-4 · drift::the record stands at complete"))
}

func TestCheckFormatGitHubFailOnUnmetMakesWaitsErrors(t *testing.T) {
	stdout, _, code := runCLI(t, nil, "check", "issue-3", "--format", "github", "--repo", fixtureRepo(t))
	assert.Equal(t, 1, code)
	assert.Equal(t, []string{"::error title=issue-3 · design-approval (wait)::no authorized feedback yet"}, withPrefix(lines(stdout), "::error "))
}

func TestCheckFormatGitHubReportsWhyItCouldNotRun(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	missing := filepath.Join(t.TempDir(), "nowhere")
	stdout, stderr, code := runCLI(t, map[string]string{"GITHUB_STEP_SUMMARY": summary},
		"check", "--all", "--format", "github", "--repo", missing)
	assert.Equal(t, 2, code)
	assert.Contains(t, stdout, "::error title=the-loop check::repository is not a readable directory: ")
	assert.Contains(t, stderr, "repository is not a readable directory")
	b, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(b), "The check could not run: repository is not a readable directory")
}

func TestCheckFormatGitHubSurvivesAnUnwritableSummary(t *testing.T) {
	stdout, _, code := runCLI(t, map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(t.TempDir(), "no", "such", "dir", "s.md")},
		"check", "issue-4", "--format", "github", "--repo", fixtureRepo(t))
	assert.Equal(t, 0, code, "the summary never changes the verdict")
	assert.Contains(t, stdout, "::warning title=the-loop check::the job summary could not be written to $GITHUB_STEP_SUMMARY: ")
}
