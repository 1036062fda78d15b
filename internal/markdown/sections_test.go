package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSections(t *testing.T) {
	tests := []struct {
		name string
		body string
		want map[string]string
	}{
		{
			name: "plain sections",
			body: "## A\none\n## B\ntwo\n",
			want: map[string]string{"A": "one", "B": "two"},
		},
		{
			name: "a section owns its subsections",
			body: "## X\n### Y\nsomething\n## Z\n",
			want: map[string]string{"X": "### Y\nsomething", "Y": "something", "Z": ""},
		},
		{
			name: "a deeper heading does not end a section, a higher one does",
			body: "# Top\nintro\n## Mid\nm\n#### Deep\nd\n# Next\nn",
			want: map[string]string{"Top": "intro\n## Mid\nm\n#### Deep\nd", "Mid": "m\n#### Deep\nd", "Deep": "d", "Next": "n"},
		},
		{
			name: "headings inside fences are not sections",
			body: "## Real\n```\n## Fake\n```\n",
			want: map[string]string{"Real": "```\n## Fake\n```"},
		},
		{
			name: "indented fences toggle too",
			body: "## A\n   ```go\n# not a heading\n   ```\n# B\nb",
			want: map[string]string{"A": "```go\n# not a heading\n   ```", "B": "b"},
		},
		{
			name: "tilde fences are not fences",
			body: "## A\n~~~\n## B\n~~~\n",
			want: map[string]string{"A": "~~~", "B": "~~~"},
		},
		{
			name: "an indented hash is not a heading",
			body: "## A\n  ## B\n",
			want: map[string]string{"A": "## B"},
		},
		{
			name: "no space needed after hashes, trailing hashes kept",
			body: "#hashtag\nx\n## Title ##\ny",
			want: map[string]string{"hashtag": "x\n## Title ##\ny", "Title ##": "y"},
		},
		{
			name: "whitespace-only content is empty",
			body: "## Empty\n   \n\t\n## Next\nz",
			want: map[string]string{"Empty": "", "Next": "z"},
		},
		{
			name: "duplicate titles: the last wins",
			body: "## Dup\nfirst\n## Dup\n\n## Other\no",
			want: map[string]string{"Dup": "", "Other": "o"},
		},
		{
			name: "crlf line ends",
			body: "## A\r\none\r\n## B\r\ntwo\r\n",
			want: map[string]string{"A": "one", "B": "two"},
		},
		{
			name: "no headings",
			body: "just text\n",
			want: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Sections(tt.body))
		})
	}
}

func TestCountUnticked(t *testing.T) {
	tests := []struct {
		body string
		want int
	}{
		{"- [ ] a\n- [x] b\n  - [ ] nested\n", 2},
		{"* [ ] star is not counted\n- [X] done\n", 0},
		{"```\n- [ ] in a fence counts\n```\n", 1},
		{"", 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CountUnticked(tt.body), tt.body)
	}
}

// syntheticDocument builds a large artifact with nested sections, fences
// and task lists.
func syntheticDocument(sections int) string {
	var sb strings.Builder
	sb.WriteString("---\nstatus: approved\napprovedBy: [alice]\n---\n")
	for i := 0; i < sections; i++ {
		fmt.Fprintf(&sb, "## Section %d\n\nSome prose about section %d that runs on for a while.\n", i, i)
		fmt.Fprintf(&sb, "### Detail %d\n\n- [x] done item\n- [ ] open item\n\n", i)
		sb.WriteString("```go\n# not a heading\nfunc f() {}\n```\n\n")
	}
	return sb.String()
}

func BenchmarkSections(b *testing.B) {
	doc := syntheticDocument(2000)
	_, body := SplitFrontMatter(doc)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if len(Sections(body)) != 4000 {
			b.Fatal("unexpected section count")
		}
	}
}

func BenchmarkSplitFrontMatter(b *testing.B) {
	doc := syntheticDocument(200)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		fm, _ := SplitFrontMatter(doc)
		if fm["status"] != "approved" {
			b.Fatal("front matter not read")
		}
	}
}

func BenchmarkCountUnticked(b *testing.B) {
	doc := syntheticDocument(2000)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if CountUnticked(doc) != 2000 {
			b.Fatal("unexpected count")
		}
	}
}

func TestLowerASCII(t *testing.T) {
	for _, s := range []string{"", "abc", "Trust Boundary — Abuse CASE", "ÄÖ Straße X"} {
		want := []byte(s)
		for i, c := range want {
			if 'A' <= c && c <= 'Z' {
				want[i] = c + 32
			}
		}
		if got := LowerASCII(s); got != string(want) {
			t.Errorf("LowerASCII(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestCountUntickedIgnoresQuotedReplies(t *testing.T) {
	body := "- [ ] mine\n\n## Review comments\n\n> - [ ] also log the export\n  > - [ ] nested quote\n- [x] done\n  - [ ] nested\n"
	if got := CountUnticked(body); got != 2 {
		t.Errorf("CountUnticked = %d, want 2 (quoted boxes are a reviewer's words)", got)
	}
}

func TestContainsFoldASCII(t *testing.T) {
	for _, tt := range []struct {
		s, needle string
		want      bool
	}{
		{"The Trust Boundary — here", "trust boundary", true},
		{"TRUST BOUNDARY", "trust boundary", true},
		{"trust-boundary", "trust boundary", false},
		{"abuse cas", "abuse case", false},
		{"", "x", false},
		{"anything", "", true},
		{"yY trust boundarYy", "y", true},
		{"xtrust boundarx Trust Boundary", "trust boundary", true},
		{"boundary trust", "trust boundaryy", false},
		{"The TRUST", "TRUST", false},
		{"@[`{ ÉTÉ", "`{", true},
		{"ÉTÉ", "été", false},
		{"ſtop", "stop", false},
	} {
		if got := ContainsFoldASCII(tt.s, tt.needle); got != tt.want {
			t.Errorf("ContainsFoldASCII(%q, %q) = %v, want %v", tt.s, tt.needle, got, tt.want)
		}
	}
}

func TestBlankSectionsKeepsEverythingElse(t *testing.T) {
	body := "# Plan\n\nintro\n\n## Test matrix\n\n| a | b |\n\n## Verification results\n\n- [x] ran it\n\n### Detail\n\nlogs\n\n```\n## Verification results\n```\n\n## Evidence plan\n\nkeep\n"
	got := BlankSections(body, []string{"Verification results"})
	assert.Equal(t, "# Plan\n\nintro\n\n## Test matrix\n\n| a | b |\n\n## Verification results\n## Evidence plan\n\nkeep\n", got)
	assert.Equal(t, strings.ReplaceAll(body, "\n", "\r\n"), strings.ReplaceAll(BlankSections(body, nil), "\n", "\r\n"))
	assert.Equal(t, BlankSections(body, []string{"Verification results"}), BlankSections(strings.ReplaceAll(body, "\n", "\r\n"), []string{"Verification results"}), "line ends do not matter")
	assert.Equal(t, body, BlankSections(body, []string{"Nope"}))
}

func TestClearTicksUnticksTaskBoxesOnly(t *testing.T) {
	in := "- [x] a\n  * [X] b\n+ [ ] c\n- [x]\n> - [x] quoted\ntext [x] here\n-[x] no space\n- [x]"
	assert.Equal(t, "- [ ] a\n  * [ ] b\n+ [ ] c\n- [ ]\n> - [x] quoted\ntext [x] here\n-[x] no space\n- [ ]", ClearTicks(in))
}

// trimIndent trims what strings.TrimLeft would with either cutset.
func TestTrimIndentIsTrimLeft(t *testing.T) {
	for _, s := range []string{"", " ", "\t\t x", " \v\f\r```", "\v```", "\r> q", "x ", "\u00a0x", " \t\n x", "\f\v\r\t "} {
		assert.Equal(t, strings.TrimLeft(s, " \t"), trimIndent(s, false), "%q", s)
		assert.Equal(t, strings.TrimLeft(s, " \t\v\f\r"), trimIndent(s, true), "%q", s)
	}
}

// ContainsFoldASCII answers as strings.Contains over the lowered text,
// wherever the needle's anchor byte falls and in whichever case.
func FuzzContainsFoldASCII(f *testing.F) {
	f.Add("the Trust Boundary", "trust boundary")
	f.Add("yYyY", "yy")
	f.Add("@[`{", "`{")
	f.Add("ÉTÉ", "ÉtÉ")
	f.Fuzz(func(t *testing.T, s, needle string) {
		if want := strings.Contains(LowerASCII(s), needle); ContainsFoldASCII(s, needle) != want {
			t.Fatalf("ContainsFoldASCII(%q, %q) = %v, want %v", s, needle, !want, want)
		}
	})
}

func TestEqualFoldASCII(t *testing.T) {
	for _, tt := range []struct {
		s, lower string
		want     bool
	}{{".The-Loop", ".the-loop", true}, {"workflows", "workflows", true}, {"WORKFLOW", "workflows", false}, {"ſtop", "stop", false}, {"", "", true}, {"A", "A", false}} {
		assert.Equal(t, tt.want, EqualFoldASCII(tt.s, tt.lower), "%q %q", tt.s, tt.lower)
	}
}

// yamlWord answers as strings.ToLower and a comparison do, for every rune
// alone and in the place of each letter of every word.
func TestYAMLWordIsToLowerCompared(t *testing.T) {
	slow := func(s string) bool {
		switch strings.ToLower(s) {
		case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
			return true
		}
		return false
	}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if s := string(r); yamlWord(s) != slow(s) {
			t.Fatalf("yamlWord(%q) = %v", s, yamlWord(s))
		}
	}
	for _, w := range []string{"null", "true", "false", "yes", "no", "on", "off", "NULL", "True", "FaLsE"} {
		for i := range w {
			for r := rune(0); r < 0x3000; r++ {
				if s := w[:i] + string(r) + w[i+1:]; yamlWord(s) != slow(s) {
					t.Fatalf("yamlWord(%q) = %v", s, yamlWord(s))
				}
			}
		}
	}
}
