package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

// referenceReport is encoding/json's rendering, the bytes appendReport
// must write.
func referenceReport(t *testing.T, rep runtime.Report, inArray bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if inArray {
		b.WriteString("  ")
		enc.SetIndent("  ", "  ")
	} else {
		enc.SetIndent("", "  ")
	}
	require.NoError(t, enc.Encode(rep))
	if inArray {
		return bytes.TrimRight(b.Bytes(), "\n")
	}
	return b.Bytes()
}

func TestReportJSONIsTheEncodersBytes(t *testing.T) {
	resolved := false
	awkward := "quote \" backslash \\ tab \t nl \n cr \r bs \b ff \f nul \x00 esc \x1b <html> & amp; é 日本 🙂 " +
		"bad \xff\xfe utf-8, line sep \u2028 para sep \u2029 end"
	reports := map[string]runtime.Report{
		"empty":    {},
		"no nodes": {WorkItem: "issue-1", CurrentNode: "phase-selection", Nodes: []runtime.NodeReport{}},
		"full": {WorkItem: "issue-2", CurrentNode: "design", OK: true,
			Parked: &runtime.Parked{Node: "design", Reason: awkward, Since: "2026-01-02T03:04:05Z"},
			Nodes: []runtime.NodeReport{
				{Node: "a", Status: "pass", Outcome: "passed", Messages: []string{}, Attempts: 2},
				{Node: "b", Status: "block", Outcome: "blocked", Messages: []string{awkward, "second"}, Forced: true},
				{Node: "c", Status: "wait", Outcome: "waiting", Messages: nil},
			},
			RepoResolved: &resolved,
			Drift:        []string{"the record stands at complete, but recomputation stops at " + awkward},
			Dependencies: &runtime.DependencyReport{ReadAt: "2026-01-02T03:04:05Z", Age: "never printed"},
		},
		"empty drift is left out": {WorkItem: "x", Drift: []string{}},
	}
	for name, rep := range reports {
		for _, inArray := range []bool{false, true} {
			got, err := encodeReport(rep, inArray)
			require.NoError(t, err)
			assert.Equal(t, string(referenceReport(t, rep, inArray)), string(got), "%s (in an array: %t)", name, inArray)
		}
	}
}

func BenchmarkEncodeReport(b *testing.B) {
	rep := runtime.Report{WorkItem: "issue-2", CurrentNode: "design", Nodes: make([]runtime.NodeReport, 14)}
	for i := range rep.Nodes {
		rep.Nodes[i] = runtime.NodeReport{Node: "requirements-definition", Status: "block", Outcome: "blocked",
			Messages: []string{"docs/specs/issue-2/requirements.md:10: required section is empty: Security considerations"}}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeReport(rep, true); err != nil {
			b.Fatal(err)
		}
	}
}
