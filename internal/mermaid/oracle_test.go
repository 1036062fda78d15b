package mermaid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oracleDir holds mermaid's own parser, installed by its install.sh.
var oracleDir = filepath.Join("testdata", "oracle")

// mermaidVerdicts runs mermaid's parser (a real Node subprocess) over srcs:
// "ok" or "error: …" for each. It skips when the oracle is not installed.
func mermaidVerdicts(t *testing.T, srcs []string) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(oracleDir, "node_modules", "mermaid")); err != nil {
		t.Skip("mermaid oracle not installed; run internal/mermaid/testdata/oracle/install.sh")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	in, err := json.Marshal(srcs)
	require.NoError(t, err)
	cmd := exec.Command(node, "parse.mjs")
	cmd.Dir = oracleDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var verdicts []string
	require.NoError(t, json.Unmarshal(out, &verdicts))
	require.Len(t, verdicts, len(srcs))
	return verdicts
}

// TestTableVerdictsAgreeWithMermaid holds every table case to mermaid's own
// parser: each valid diagram parses there, each invalid one is refused.
func TestTableVerdictsAgreeWithMermaid(t *testing.T) {
	var srcs, names []string
	var valid []bool
	for _, c := range append(append([]validCase{}, validFlowcharts...), validSequences...) {
		srcs, names, valid = append(srcs, c.src), append(names, c.name), append(valid, true)
	}
	for _, c := range append(append([]invalidCase{}, invalidFlowcharts...), invalidSequences...) {
		srcs, names, valid = append(srcs, c.src), append(names, c.name), append(valid, false)
	}
	for i, v := range mermaidVerdicts(t, srcs) {
		assert.Equal(t, valid[i], v == "ok", "%s: mermaid says %s", names[i], v)
	}
}

// corpusDir is the shared corpus of real spec folders, beside the
// repository checkout; tests skip where it is absent.
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus", "the-loop-v11.2.0")

// fencedDiagrams returns the text of every ```mermaid block in text.
func fencedDiagrams(text string) []string {
	var out, cur []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case in && strings.HasPrefix(t, "```"):
			out, in = append(out, strings.TrimSpace(strings.Join(cur, "\n"))), false
		case in:
			cur = append(cur, l)
		case strings.HasPrefix(t, "```mermaid"):
			in, cur = true, nil
		}
	}
	return out
}

// TestCorpusVerdictsAgreeWithMermaid checks every flowchart and sequence
// diagram of the shared corpus with Check and with mermaid's own parser,
// and expects the same verdict for each.
func TestCorpusVerdictsAgreeWithMermaid(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skip("the shared corpus is absent; skipping")
	}
	var srcs, where []string
	require.NoError(t, filepath.WalkDir(corpusDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		for i, src := range fencedDiagrams(string(data)) {
			if Check(src).Checked {
				srcs, where = append(srcs, src), append(where, fmt.Sprintf("%s block %d", p, i+1))
			}
		}
		return err
	}))
	require.NotEmpty(t, srcs)
	for i, v := range mermaidVerdicts(t, srcs) {
		res := Check(srcs[i])
		assert.Equal(t, v == "ok", len(res.Findings) == 0, "%s: mermaid says %s; Check says %v", where[i], v, res.Findings)
	}
}
