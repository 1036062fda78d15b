package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckToolOneItem(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, newLoopService(t, repo))

	res := callTool(t, c, "check", map[string]any{"workItem": "issue-2"})
	require.False(t, res.IsError, resultText(t, res))
	rep := structured(t, res)
	assert.Equal(t, "issue-2", rep["workItem"])
	assert.Equal(t, "requirements-definition", rep["currentNode"])
	assert.Equal(t, false, rep["ok"])
	nodes, ok := rep["nodes"].([]any)
	require.True(t, ok)
	assert.NotEmpty(t, nodes)
	text := resultText(t, res)
	assert.Contains(t, text, "issue-2: UNMET (at requirements-definition)")
	assert.Contains(t, text, "required section is empty: Security considerations", "the summary carries the finding to act on")

	res = callTool(t, c, "check", map[string]any{"workItem": "issue-4"})
	require.False(t, res.IsError)
	assert.Equal(t, true, structured(t, res)["ok"])
	assert.Equal(t, "issue-4: ok (at complete)", resultText(t, res))
}

func TestCheckToolAllItems(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, newLoopService(t, repo))
	for _, recompute := range []bool{false, true} {
		res := callTool(t, c, "check", map[string]any{"all": true, "recompute": recompute})
		require.False(t, res.IsError, resultText(t, res))
		reports, ok := structured(t, res)["reports"].([]any)
		require.True(t, ok)
		var ids []string
		for _, r := range reports {
			ids = append(ids, r.(map[string]any)["workItem"].(string))
		}
		assert.Equal(t, []string{"issue-1", "issue-2", "issue-3", "issue-4", "issue-5", "issue-6"}, ids)
		assert.Equal(t, "1/6 work items satisfied", resultText(t, res))
	}

	empty := t.TempDir()
	c = loopClient(t, newLoopService(t, empty))
	res := callTool(t, c, "check", map[string]any{"all": true})
	require.True(t, res.IsError, "a check over no work item never passes")
	real, err := filepath.EvalSymlinks(empty)
	require.NoError(t, err)
	assert.Contains(t, resultText(t, res), "no work items to check: the spec folder docs/specs (the default;")
	assert.Contains(t, resultText(t, res), "does not exist in the repository root "+real)
}

func TestCheckToolReadsTheNamedRepo(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, newLoopService(t, t.TempDir()))
	res := callTool(t, c, "check", map[string]any{"workItem": "issue-2", "repo": repo})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "requirements-definition", structured(t, res)["currentNode"])
}

func TestCheckToolWritesNothing(t *testing.T) {
	repo := copyFixture(t)
	svc := newLoopService(t, repo)
	c := loopClient(t, svc)
	before := treeSnapshot(t, repo)
	callTool(t, c, "check", map[string]any{"all": true})
	callTool(t, c, "check", map[string]any{"workItem": "issue-2", "recompute": true})
	assert.Equal(t, before, treeSnapshot(t, repo), "check changes no file")
	_, err := os.Stat(svc.DBPath())
	assert.ErrorIs(t, err, os.ErrNotExist, "check creates no state store")
}

func TestCheckToolRefusals(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, newLoopService(t, repo))
	notDir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notDir, []byte("x"), 0o644))
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"neither item nor all", map[string]any{}, []string{"give either workItem", "or all=true"}},
		{"both item and all", map[string]any{"workItem": "issue-2", "all": true}, []string{"not both"}},
		{"id with a path", map[string]any{"workItem": "../etc"}, []string{"check failed", "not a plain folder name"}},
		{"missing repository", map[string]any{"workItem": "issue-2", "repo": "/no/such/checkout"}, []string{"not a readable directory", "pass repo as the path of a repository checkout"}},
		{"repository is a file", map[string]any{"workItem": "issue-2", "repo": notDir}, []string{"not a directory"}},
		{"mistyped all", map[string]any{"all": "yes"}, []string{`argument "all" must be true or false`}},
		{"human-decision argument", map[string]any{"workItem": "issue-2", "force": true}, []string{`unknown argument "force"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, c, "check", tt.args)
			require.True(t, res.IsError)
			for _, w := range tt.want {
				assert.Contains(t, resultText(t, res), w)
			}
		})
	}
}

// treeSnapshot maps every file under root to its content.
func treeSnapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	}))
	return out
}
