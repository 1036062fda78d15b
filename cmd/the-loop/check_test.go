package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs the binary's Main with buffers and an isolated environment.
func runCLI(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: t.TempDir(), Getenv: func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		switch k {
		case "THE_LOOP_DB":
			return filepath.Join(t.TempDir(), "none.db")
		case "THE_LOOP_CONFIG":
			return ""
		}
		return ""
	}}
	code = Main(context.Background(), e, args)
	return out.String(), errb.String(), code
}

func fixtureRepo(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("../../testdata/repo")
	require.NoError(t, err)
	return abs
}

// golden compares got with testdata/golden/name, rewriting it under UPDATE_GOLDEN=1.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run UPDATE_GOLDEN=1 go test ./cmd/the-loop")
	assert.Equal(t, string(want), got)
}

func TestCheckFixtureGoldenJSON(t *testing.T) {
	repo := fixtureRepo(t)
	for _, id := range []string{"issue-1", "issue-2", "issue-3", "issue-4", "issue-5", "issue-6"} {
		for _, recompute := range []bool{false, true} {
			name := "check-" + id + ".json"
			args := []string{"check", id, "--repo", repo, "--format", "json"}
			if recompute {
				name = "check-" + id + "-recompute.json"
				args = append(args, "--recompute")
			}
			t.Run(name, func(t *testing.T) {
				out, errOut, code := runCLI(t, nil, args...)
				var rep map[string]any
				require.NoError(t, json.Unmarshal([]byte(out), &rep), "stdout must be one JSON report; stderr: %s", errOut)
				want := 1
				if rep["ok"] == true {
					want = 0
				}
				assert.Equal(t, want, code, "exit code follows ok")
				golden(t, name, out)
			})
		}
	}
}

func TestCheckAllTableAndJSON(t *testing.T) {
	repo := fixtureRepo(t)
	out, _, code := runCLI(t, nil, "check", "--all", "--repo", repo)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "\n1/6 work items satisfied\n")
	golden(t, "check-all.txt", out)

	out, _, code = runCLI(t, nil, "check", "--all", "--repo", repo, "--fail-on", "block")
	assert.Equal(t, 1, code, "issue-2 and issue-5 block")
	assert.Contains(t, out, "\n4/6 work items satisfied\n", "waits on a human are not failures under --fail-on block")

	out, _, _ = runCLI(t, nil, "check", "--all", "--repo", repo, "--format", "json")
	var reports []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &reports))
	require.Len(t, reports, 6)
	for i, r := range reports {
		assert.Equal(t, []string{"issue-1", "issue-2", "issue-3", "issue-4", "issue-5", "issue-6"}[i], r["workItem"], "work-item order")
		for _, k := range []string{"workItem", "currentNode", "ok", "parked", "nodes"} {
			assert.Contains(t, r, k)
		}
	}
}

func TestCheckSingleItemTable(t *testing.T) {
	out, _, code := runCLI(t, nil, "check", "issue-2", "--repo", fixtureRepo(t))
	assert.Equal(t, 1, code)
	assert.Equal(t, "issue-2: UNMET (at requirements-definition)\n"+
		"  BLOCK  requirements-definition\n"+
		"         · required section is empty: Security considerations (docs/specs/issue-2/requirements.md)\n", firstLines(out, 3))
	assert.Regexp(t, `····   \d+ node\(s\) not reached yet`, out)
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

func TestCheckUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no id and no --all", []string{"check"}, "give a work item id, or --all"},
		{"bad format", []string{"check", "issue-1", "--format", "xml"}, `--format "xml" is not one of table, json`},
		{"bad fail-on", []string{"check", "issue-1", "--fail-on", "never"}, `--fail-on "never"`},
		{"unreadable repository", []string{"check", "issue-1", "--repo", "/definitely/not/here"}, "is not a directory"},
		{"id that is a path", []string{"check", "../etc", "--repo", "."}, "is not a plain folder name"},
		{"two ids", []string{"check", "a", "b"}, "at most one work item"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, nil, tt.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestCheckIsReadOnly(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	db := filepath.Join(t.TempDir(), "state.db")
	before := snapshotTree(t, repo)
	_, _, _ = runCLI(t, map[string]string{"THE_LOOP_DB": db}, "check", "--all", "--recompute", "--repo", repo)
	_, _, _ = runCLI(t, map[string]string{"THE_LOOP_DB": db}, "check", "--all", "--repo", repo)
	assert.Equal(t, before, snapshotTree(t, repo), "check writes nothing in the repository")
	_, err := os.Stat(db)
	assert.True(t, os.IsNotExist(err), "check does not create the database")
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}
