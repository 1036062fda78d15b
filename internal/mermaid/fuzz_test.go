package mermaid

import (
	"strings"
	"testing"
)

// FuzzCheck: any text is checked without a panic, and every finding points
// at a line of the text.
func FuzzCheck(f *testing.F) {
	for _, c := range validFlowcharts {
		f.Add(c.src)
	}
	for _, c := range invalidFlowcharts {
		f.Add(c.src)
	}
	for _, c := range validSequences {
		f.Add(c.src)
	}
	for _, c := range invalidSequences {
		f.Add(c.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		res := Check(src)
		n := strings.Count(strings.ReplaceAll(src, "\r\n", "\n"), "\n") + 1
		for _, fd := range res.Findings {
			if fd.Line < 0 || fd.Line > n {
				t.Fatalf("finding %+v points outside the %d lines of %q", fd, n, src)
			}
		}
		if res.Checked && res.Type == "" {
			t.Fatalf("checked without a type: %q", src)
		}
	})
}
