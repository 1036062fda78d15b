package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// implementationRig is a repository whose repository config declares
// commands, and item issue-1 standing at implementation with its tasks
// ticked.
func implementationRig(t *testing.T, commands string) (*Service, ItemRequest) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not available")
	}
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, repoconfig.Path), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"+commands)
	writeFile(t, filepath.Join(repo, "docs", "specs", "issue-1", "tasks.md"), "# Tasks\n\n## Task list\n\n- [x] T1 the export\n")
	svc := testService(t, config.Default(), Deps{Signer: runtime.NewSigner([]byte("test-key"))})
	item := ItemRequest{Repo: repo, WorkItem: "issue-1"}
	ctx := context.Background()
	_, err := svc.Start(ctx, StartRequest{ItemRequest: item})
	require.NoError(t, err)
	_, err = svc.Force(ctx, ForceRequest{ItemRequest: item, To: "implementation", Reason: "the test starts at implementation", Actor: "op"})
	require.NoError(t, err)
	// What these tests hold is the repository's commands, not pull
	// requests: the item is declared to need none.
	_, err = svc.GraphRepos(ctx, GraphReposRequest{ItemRequest: item, Clear: true, Actor: "op"})
	require.NoError(t, err)
	return svc, item
}

func nodeReport(t *testing.T, svc *Service, item ItemRequest, recompute bool, node string) runtime.NodeReport {
	t.Helper()
	res, err := svc.Check(context.Background(), CheckRequest{Repo: item.Repo, WorkItem: item.WorkItem, Recompute: recompute})
	require.NoError(t, err)
	for _, nr := range res.Reports[0].Nodes {
		if nr.Node == node {
			return nr
		}
	}
	t.Fatalf("no node %s", node)
	return runtime.NodeReport{}
}

// A repository whose test command fails blocks implementation with the
// command named and its failing lines; the output is evidence, and check
// reports the recorded run without running anything.
func TestAFailingRepositoryTestBlocksImplementation(t *testing.T) {
	svc, item := implementationRig(t, "commands:\n  lint: [sh, -c, 'echo lint ok']\n  test: [sh, -c, 'echo \"--- FAIL: TestExport\"; exit 1']\n")
	claim, err := svc.Complete(context.Background(), CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	assert.Equal(t, "block", claim.Status)
	assert.False(t, claim.Moved)
	assert.Contains(t, claim.Messages, `commands.test failed: sh -c 'echo "--- FAIL: TestExport"; exit 1' ended with exit 1`)
	assert.Contains(t, claim.Messages, "--- FAIL: TestExport")

	ev, err := os.ReadFile(filepath.Join(item.Repo, "docs", "specs", "issue-1", "evidence", "tests-implementation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(ev), "| test |")
	assert.Contains(t, string(ev), "--- FAIL: TestExport")

	nr := nodeReport(t, svc, item, false, "implementation")
	assert.Equal(t, "block", nr.Status)
	assert.Contains(t, strings.Join(nr.Messages, "\n"), "the last run at implementation failed (commands.test `sh -c")
}

func TestAPassingRepositoryTestIsRecordedAndReportedByCheck(t *testing.T) {
	svc, item := implementationRig(t, "commands:\n  test: [sh, -c, 'echo ok']\n")
	claim, err := svc.Complete(context.Background(), CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	require.Equal(t, "pass", claim.Status, claim.Messages)
	assert.Equal(t, "verification", claim.CurrentNode)
	for _, recompute := range []bool{false, true} {
		nr := nodeReport(t, svc, item, recompute, "implementation")
		assert.Equal(t, "pass", nr.Status, "recompute=%v: %v", recompute, nr.Messages)
	}
	evs, err := svc.Events(context.Background(), item)
	require.NoError(t, err)
	assert.Contains(t, eventNames(evs.Events), "tests.ran")
}

// With no command declared, implementation waits, naming the key to set;
// it never passes on nothing.
func TestImplementationWaitsWithoutADeclaredCommand(t *testing.T) {
	svc, item := implementationRig(t, "")
	claim, err := svc.Complete(context.Background(), CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	assert.Equal(t, "wait", claim.Status)
	assert.Equal(t, "implementation", claim.CurrentNode)
	assert.Contains(t, strings.Join(claim.Messages, "\n"), "set commands.test (and commands.lint, commands.typeCheck) in .the-loop/harness-config.yaml")
}
