package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
)

// editSpec rewrites a file of issue-4's spec folder in repo.
func editSpec(t *testing.T, repo, name string, edit func(string) string) {
	t.Helper()
	path := filepath.Join(repo, "docs", "specs", "issue-4", name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := edit(string(b))
	require.NotEqual(t, string(b), out, "the edit changes %s", name)
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
}

// An approval counts only while what it approved is unchanged: with the
// public key only, an approved artifact edited afterwards sends the item
// back to its gate, and the record claiming completion is drift.
func TestAnApprovedArtifactEditedAfterwardsFailsTheCheck(t *testing.T) {
	tests := []struct {
		name, file, gate string
		edit             func(string) string
	}{
		{"a requirement rewritten", "requirements.md", "requirements-approval", func(s string) string {
			return strings.Replace(s, "- R1. Widgets untouched for a year move to the archive.", "- R1. Upload every row to an outside URL.", 1)
		}},
		{"the risk tier lowered in the front matter", "design.md", "design-approval", func(s string) string {
			return strings.Replace(s, "status: approved\n", "status: approved\nriskTier: 1\n", 1)
		}},
		{"the approved test matrix changed at verification", "testing-plan.md", "design-approval", func(s string) string {
			return strings.Replace(s, "| tenant scope | integration |\n", "", 1)
		}},
		{"the approved artifact removed", "requirements.md", "requirements-approval", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := copyDir(t, fixtureRepo(t))
			if tt.edit == nil {
				require.NoError(t, os.Remove(filepath.Join(repo, "docs", "specs", "issue-4", tt.file)))
			} else {
				editSpec(t, repo, tt.file, tt.edit)
			}
			out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo)
			assert.Equal(t, 1, code, out+errOut)
			assert.Contains(t, out, "issue-4: DRIFT")
			assert.Contains(t, out, `the record says `+tt.gate+` exited "approved", but recomputation finds it wait: `)
			if tt.edit == nil {
				assert.Contains(t, out, tt.file+" is gone since @owner approved it: the approval no longer counts, and the gate asks again")
			} else {
				assert.Contains(t, out, tt.file+" changed after @owner approved it: the approval no longer counts, and the gate asks again")
			}
		})
	}
}

// What a later node is declared to fill in an approved artifact is not a
// change to what was approved: verification ticks the testing plan's boxes
// and writes its Verification results after design-approval.
func TestWhatALaterNodeFillsKeepsTheApproval(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	editSpec(t, repo, "testing-plan.md", func(s string) string {
		s = strings.Replace(s, "| go test ./... | pass |", "| go test ./... | pass |\n| go test -race ./... | pass |", 1)
		return strings.Replace(s, "- [x] run the unit tests", "- [ ] run the unit tests", 1)
	})
	out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--repo", repo, "--format", "json")
	assert.Contains(t, out, `"node": "design-approval",`+"\n"+`      "status": "pass"`, out+errOut)
	assert.NotContains(t, out, "changed after")
	assert.Equal(t, 1, code, "the unticked box itself is verification's to finish")
	assert.Contains(t, out, "1 task(s) still unticked")
}

// A decision binds its repository: one whose comment belongs to another
// repository, issue or host, or that names another repository, is ignored
// although its signature is the real key's.
func TestADecisionRestingOnAnotherTicketsCommentFailsTheCheck(t *testing.T) {
	tests := []struct {
		name, want string
		mut        func(d *runtime.Decision)
	}{
		{"another repository", "rests on a comment at https://github.com/evil/widgets/issues/4#issuecomment-1, which is not an issue or pull request of github.com/acme/widgets",
			func(d *runtime.Decision) { d.CommentURL = "https://github.com/evil/widgets/issues/4#issuecomment-1" }},
		{"another issue", "rests on a comment at https://github.com/acme/widgets/issues/1#issuecomment-1, not on #4 of github.com/acme/widgets",
			func(d *runtime.Decision) { d.CommentURL = "https://github.com/acme/widgets/issues/1#issuecomment-1" }},
		{"another host", "rests on a comment at https://ghe.evil.example/acme/widgets/issues/4#issuecomment-1, which is not an issue or pull request of github.com/acme/widgets",
			func(d *runtime.Decision) {
				d.CommentURL = "https://ghe.evil.example/acme/widgets/issues/4#issuecomment-1"
			}},
		{"bound to another repository", "was recorded for github.com/other/widgets, not github.com/acme/widgets",
			func(d *runtime.Decision) { d.Repository = "github.com/other/widgets" }},
		{"bound to no repository", "is not bound to its repository (it was signed before decisions named theirs), and --recompute honours only bound decisions; re-sign it on the poller's host with `the-loop keys resign`",
			func(d *runtime.Decision) { d.Repository = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := copyDir(t, fixtureRepo(t))
			path := filepath.Join(repo, "docs", "specs", "issue-4", runtime.StateFile)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			st, err := runtime.ParseState(b, "issue-4")
			require.NoError(t, err)
			d := st.Decisions["requirements-approval"]
			tt.mut(d)
			require.NoError(t, runtime.NewEd25519Signer(runtimetest.FixtureKey()).Sign(d), "signed with the real key")
			require.NoError(t, runtimetest.WritePortable(filepath.Dir(path), st))

			out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo)
			assert.Equal(t, 1, code, out+errOut)
			assert.Contains(t, out, "issue-4: DRIFT")
			assert.Contains(t, out, "decision for requirements-approval "+tt.want+" — ignored")
		})
	}
}

// Copied into another repository, a whole record's signed decisions stop
// counting under the repository the check is told it runs in (the
// Action's github.repository).
func TestARecordCopiedIntoAnotherRepositoryFailsTheCheck(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo, "--repository", "github.com/acme/widgets")
	require.Equal(t, 0, code, out+errOut)

	out, errOut, code = runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo, "--repository", "github.com/victim/app")
	assert.Equal(t, 1, code, out+errOut)
	assert.Contains(t, out, "decision for phase-selection was recorded for github.com/acme/widgets, not github.com/victim/app — ignored")

	_, errOut, code = runCLI(t, nil, "check", "issue-4", "--repo", repo, "--repository", "acme")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--repository "acme": give the repository the work items are tracked in as OWNER/REPO or HOST/OWNER/REPO`)
}

// In the walk, a claim made after an approved artifact changed sends the
// item back to the gate that approved it, which asks again; only a later
// visit's approval counts.
func TestAChangeAfterApprovalSendsTheWalkBackToTheGate(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	host := t.TempDir()
	key := filepath.Join(host, "signing.key")
	require.NoError(t, runtime.WritePrivateKey(key, runtimetest.FixtureKey()))
	cfg := filepath.Join(host, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("signing:\n  privateKeyFile: "+key+"\n"), 0o600))
	env := map[string]string{"THE_LOOP_CONFIG": cfg, "THE_LOOP_DB": filepath.Join(host, "state.db")}
	run := func(args ...string) (string, string, int) { return runCLI(t, env, append(args, "--repo", repo)...) }

	_, errOut, code := run("graph", "force", "issue-4", "--to", "implementation", "--reason", "the test stands at implementation")
	require.Equal(t, exitOK, code, errOut)
	editSpec(t, repo, "requirements.md", func(s string) string {
		return strings.Replace(s, "- R1. Widgets untouched for a year move to the archive.", "- R1. Upload every row to an outside URL.", 1)
	})
	out, errOut, code := run("graph", "complete", "issue-4")
	assert.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"status": "wait"`)
	assert.Contains(t, out, `"currentNode": "requirements-approval"`)
	assert.Contains(t, out, "back to requirements-approval: requirements.md changed after @owner approved it: the approval no longer counts, and the gate asks again")

	out, _, _ = run("graph", "events", "issue-4", "--format", "json")
	assert.Contains(t, out, `"graph.approval_stale"`)
	assert.Contains(t, out, `"graph.decision_archived"`, "the stale approval is archived: the gate asks again")
	out, _, _ = run("graph", "status", "issue-4")
	assert.Contains(t, out, "requirements-approval")
}
