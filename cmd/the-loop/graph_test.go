package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGraphShowFormats(t *testing.T) {
	out, _, code := runCLI(t, nil, "graph", "show")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "pdlc-work-item-loop v1, start: phase-selection\n"))
	assert.Contains(t, out, "  phase-selection  [required, human]\n      --selected--> import-handoff\n")
	assert.Contains(t, out, "  design-critic-review  [opt-in]")

	out, _, code = runCLI(t, nil, "graph", "show", "--loop", "pdlc-adhoc-loop", "--format", "json")
	require.Equal(t, 0, code)
	var view struct {
		Name  string `json:"name"`
		Start string `json:"start"`
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
		Edges []map[string]string `json:"edges"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &view))
	assert.Equal(t, "pdlc-adhoc-loop", view.Name)
	assert.Equal(t, "work", view.Start)
	assert.Contains(t, view.Edges, map[string]string{"from": "review", "to": "work", "on": "more-work"})

	out, _, code = runCLI(t, nil, "graph", "show", "--format", "mermaid")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "flowchart TD\n"))

	_, errOut, code := runCLI(t, nil, "graph", "show", "--loop", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `no shipped loop named "nope"`)
}

// A shell walks an item without force: start, declare a skip, advance, force, and read the log.
func TestGraphVerbsWalkAndAudit(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	host := t.TempDir()
	keyFile := filepath.Join(host, "signing.key")
	cfgFile := filepath.Join(host, "config.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte("signing:\n  privateKeyFile: "+keyFile+"\n"), 0o600))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db"), "THE_LOOP_CONFIG": cfgFile}
	run := func(args ...string) (string, string, int) {
		return runCLI(t, env, append(args, "--repo", repo)...)
	}
	out, _, code := run("keys", "init", "--key-file", keyFile)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "(mode 0600, created)")
	out, _, code = run("graph", "start", "issue-1")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "issue-1: started pdlc-work-item-loop at phase-selection")
	out, _, _ = run("graph", "start", "issue-1")
	assert.Contains(t, out, "already started, at phase-selection")

	out, errOut, code := run("graph", "skip", "issue-1", "--node", "review-chain", "--node", "phase-selection", "--reason", "docs-only change")
	require.Equal(t, exitUnmet, code, "a partial rejection is not a success")
	assert.Contains(t, errOut, "graph skip: 1 name was rejected (listed above); the others stand")
	assert.Contains(t, out, "declared: self-review will be skipped")
	assert.Contains(t, out, "rejected: phase-selection — not a skippable node or shipped skip set")
	_, errOut, code = run("graph", "skip", "issue-1", "--node", "design")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--reason is required")

	out, _, code = run("graph", "advance", "issue-1")
	assert.Equal(t, 0, code, "a wait is not a failure")
	assert.Contains(t, out, "issue-1: phase-selection → wait")

	out, _, code = run("graph", "complete", "issue-1")
	require.Equal(t, exitUnmet, code, "a refused claim is unmet work")
	var env1 map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &env1))
	assert.Equal(t, "human-gate", env1["reason"])

	_, errOut, code = run("graph", "force", "issue-1", "--to", "nowhere", "--reason", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown node "nowhere"`)
	out, _, code = run("graph", "force", "issue-1", "--to", "design", "--reason", "requirements agreed on a call")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "forced issue-1: phase-selection → design")
	assert.Contains(t, out, "is marked required")

	out, _, code = run("graph", "events", "issue-1", "--format", "json")
	require.Equal(t, 0, code)
	var evs []struct {
		Name string `json:"name"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &evs))
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	for _, want := range []string{"graph.started", "graph.skips_declared", "graph.skips_rejected", "graph.parked", "graph.forced"} {
		assert.Contains(t, names, want)
	}

	out, _, code = run("check", "issue-1", "--recompute", "--format", "json")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `"currentNode": "phase-selection"`, "force never forges the bypassed verdict")
	assert.Contains(t, out, `skipped by declaration — via cli, token \"review-chain\", by (shell), reason: docs-only change`)
	assert.NotContains(t, out, `"drift"`, "a signed force explains the pointer")

	// CI: no secret, only the committed public key.
	ci := map[string]string{"THE_LOOP_DB": env["THE_LOOP_DB"]}
	out, _, _ = runCLI(t, ci, "check", "issue-1", "--recompute", "--format", "json", "--repo", repo)
	assert.Contains(t, out, `skipped by declaration — via cli, token \"review-chain\", by (shell), reason: docs-only change`, "verified keyless")
	assert.NotContains(t, out, `"drift"`)
}

// graph complete prints the claim's answer as JSON by default and as a line for
// people with --format table; an unknown format is a usage error.
func TestGraphCompleteHonoursFormat(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	out, _, code := runCLI(t, env, "graph", "complete", "issue-3", "--repo", repo, "--format", "table")
	assert.Equal(t, exitUnmet, code)
	assert.Equal(t, "design-approval: refused (human-gate)\n- design-approval is a human gate: it completes when an authorized reviewer answers on the ticket, never by a claim\n", out)

	out, _, _ = runCLI(t, env, "graph", "complete", "issue-3", "--repo", repo)
	var envl map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &envl), "JSON by default")
	assert.Equal(t, "refused", envl["status"])

	_, errOut, code := runCLI(t, env, "graph", "complete", "issue-3", "--repo", repo, "--format", "xml")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--format")
}
