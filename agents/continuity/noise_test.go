package continuity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNoiseFilter(t *testing.T) {
	long := strings.Repeat("a1b2", 20)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain text kept in order", "first finding\nsecond finding", []string{"first finding", "second finding"}},
		{"fenced tool output", "ran the tests\n```\n--- FAIL: TestX\nexit status 1\n```\nfixed the nil map", []string{"ran the tests", "fixed the nil map"}},
		{"system reminder block", "keep\n<system-reminder>\nyou must do X\n</system-reminder>\nalso keep", []string{"keep", "also keep"}},
		{"inline tool result", "<tool_result>42 files</tool_result>\nsummary", []string{"summary"}},
		{"shell prompt lines", "$ go test ./...\ntests pass", []string{"tests pass"}},
		{"json line", `{"status":"ok","items":[1,2,3]}` + "\nthe API answered ok", []string{"the API answered ok"}},
		{"json wall", "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\nparsed the config", []string{"parsed the config"}},
		{"punctuation wall", "| --- | --- | --- | --- |\n=====================\nreal line", []string{"real line"}},
		{"repeated lines", "retrying\nretrying\nRetrying\ngave up", []string{"retrying", "gave up"}},
		{"long token run", "hash " + long + " matched", []string{"hash " + elided + " matched"}},
		{"only a long token", long, nil},
		{"long url kept", "see https://example.com/" + strings.Repeat("p", 80), []string{"see https://example.com/" + strings.Repeat("p", 80)}},
		{"blank lines", "\n\n  \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newNoiseFilter().lines(tt.in)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNoiseItemCap(t *testing.T) {
	got := newNoiseFilter().item(strings.Repeat("word ", 200))
	assert.LessOrEqual(t, len(got), maxItem)
	assert.True(t, strings.HasSuffix(got, " …"))
	assert.Equal(t, "", newNoiseFilter().item("```\nonly a dump\n```"))
}
