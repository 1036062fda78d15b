package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolSnapDir holds one JSON snapshot per shipped tool, so a schema change
// shows up in review like any other code change.
const toolSnapDir = "testdata/toolsnaps"

// assertToolSnap compares the tool's JSON (as tools/list sends it) with
// dir/<name>.json; UPDATE_TOOLSNAPS=1 rewrites the file instead.
func assertToolSnap(t *testing.T, dir string, tool mcp.Tool) {
	t.Helper()
	require.NoError(t, compareToolSnap(dir, tool, os.Getenv("UPDATE_TOOLSNAPS") == "1"))
}

// compareToolSnap returns an error naming the fix when the snapshot is
// missing or differs. A missing file is an error so that a new tool cannot
// ship without its snapshot.
func compareToolSnap(dir string, tool mcp.Tool, update bool) error {
	got, err := json.MarshalIndent(tool, "", "  ")
	if err != nil {
		return fmt.Errorf("marshal tool %q: %w", tool.Name, err)
	}
	got = append(got, '\n')
	path := filepath.Join(dir, tool.Name+".json")
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			return fmt.Errorf("write snapshot: %w", err)
		}
		return nil
	}
	want, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("no snapshot for tool %q (%w): run UPDATE_TOOLSNAPS=1 go test ./mcp and review %s", tool.Name, err, path)
	}
	if !bytes.Equal(want, got) {
		return fmt.Errorf("tool %q schema differs from %s:\n--- snapshot\n%s\n--- now\n%s\nreview the change, then run UPDATE_TOOLSNAPS=1 go test ./mcp", tool.Name, path, want, got)
	}
	return nil
}

// staleSnaps lists snapshots in dir whose tool is not in names.
func staleSnaps(dir string, names []string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var stale []string
	for _, f := range files {
		if !contains(names, strings.TrimSuffix(filepath.Base(f), ".json")) {
			stale = append(stale, f)
		}
	}
	return stale, nil
}

func TestToolSnapshots(t *testing.T) {
	var names []string
	for _, tool := range AllTools() {
		names = append(names, tool.Def.Name)
		t.Run(tool.Def.Name, func(t *testing.T) { assertToolSnap(t, toolSnapDir, tool.Def) })
	}
	stale, err := staleSnaps(toolSnapDir, names)
	require.NoError(t, err)
	assert.Empty(t, stale, "snapshots without a registered tool: delete them")
}

func TestToolSnapshotHelper(t *testing.T) {
	// The test tool's snapshot lives apart from the shipped ones.
	assertToolSnap(t, "testdata/testtoolsnaps", echoTool.Def)

	dir := t.TempDir()
	require.NoError(t, compareToolSnap(dir, echoTool.Def, true), "update writes the snapshot")
	require.NoError(t, compareToolSnap(dir, echoTool.Def, false), "an unchanged schema matches")

	changed := echoTool.Def
	changed.InputSchema.Required = nil
	err := compareToolSnap(dir, changed, false)
	require.Error(t, err, "a changed schema fails")
	assert.Contains(t, err.Error(), "UPDATE_TOOLSNAPS=1")

	err = compareToolSnap(t.TempDir(), echoTool.Def, false)
	require.Error(t, err, "a missing snapshot fails")
	assert.Contains(t, err.Error(), `no snapshot for tool "echo_item"`)

	stale, err := staleSnaps(dir, []string{"other"})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "echo_item.json")}, stale)
}
