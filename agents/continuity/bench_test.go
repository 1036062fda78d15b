package continuity

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkFit(b *testing.B) {
	var others []section
	for i := 0; i < 7; i++ {
		var lines []string
		for j := 0; j < 60; j++ {
			lines = append(lines, fmt.Sprintf("- item %d %s", j, strings.Repeat("日本語 text ", 8)))
		}
		others = append(others, section{title: fmt.Sprint("S", i), lines: lines})
	}
	where := whereSection{facts: []string{"- status: active"}, entries: others[0].lines}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fit(others, where, BriefBudget); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindPaths(b *testing.B) {
	line := "See https://github.com/acme/widgets/issues/12, edit cmd/the-loop/main.go and ~/notes.txt, then run ./build.sh"
	b.ReportAllocs()
	for b.Loop() {
		if len(FindPaths(line, []string{"cmd"})) != 3 {
			b.Fatal("expected three paths")
		}
	}
}
