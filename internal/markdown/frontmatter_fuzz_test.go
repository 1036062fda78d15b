package markdown

import (
	"fmt"
	"reflect"
	"testing"
	"unicode"
)

// frontMatterSeeds are shapes the fast path must agree with yaml.v3 on,
// including the ones it once read differently.
var frontMatterSeeds = []string{
	"status: approved\n",
	"status: approved\nnote: see:\n",
	"status: approved\nnote: a\x01b\n",
	"00: x\nstatus: approved\n",
	"status: approved\rnote: x\n",
	"a: 1\r\nb: 2\r\n",
	"status: approved # why\napprovedBy: [\"@o\", b]\n",
	"k: v\u00a0\n",
	"k: a\u2028b\n",
	"k: \ufeffx\n",
	"k: x\u0085y\n",
	"true: x\n",
	"null: x\n",
	"k: [a:b]\n",
	"k: [a #b]\n",
	"k: \"a\\tb\"\n",
	"k: <<\n",
	"k: a\tb\n",
	"--- k: v\n",
	"k: 1_000\n",
	"k: 0x1F\n",
	"k: 12345678901234567890\n",
	"k: 'x'\n",
	"k: ~\n",
	"k: @x\n",
	"k: x:y\n",
	"k: [a, b, ]\n",
	"k: [\"a\", \"b\\\"c\"]\n",
	"- a\n",
	"A: [A?]\n",
	"k: [a?b, c]\n",
	"k: [a, b?]\n",
	"k: 1.5\nj: 2026-07-28\n",
}

// The fast path must equal yaml.v3 wherever it answers: one reading of a
// lock, whichever path reads it.
func TestFastPathMatchesYAMLOnKnownShapes(t *testing.T) {
	for _, raw := range frontMatterSeeds {
		assertSameReading(t, raw)
	}
}

// FuzzFrontMatterFastPathMatchesYAML is the differential check behind the
// fast path: for any block it accepts, yaml.v3 gives the same mapping.
// CI runs it briefly on every build (.ci/run).
func FuzzFrontMatterFastPathMatchesYAML(f *testing.F) {
	for _, s := range frontMatterSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		assertSameReading(t, raw)
		fm, body := SplitFrontMatter("---\n" + raw + "\n---\nbody\n")
		if fm == nil || len(body) == 0 {
			t.Fatalf("SplitFrontMatter lost its body or map for %q", raw)
		}
	})
}

func assertSameReading(t *testing.T, raw string) {
	t.Helper()
	got, ok := parseSimpleYAML(raw)
	if !ok {
		return
	}
	want, wok := parseYAMLMapping(raw)
	if !wok {
		t.Errorf("the fast path read %q as %#v, but yaml.v3 refuses it", raw, got)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the fast path read %q as %#v, yaml.v3 as %#v", raw, got, want)
	}
}

// The fast path reads every character and every pair of characters where a
// scalar may hold them — a block value, a key, a flow-list item, a quoted
// string, at its start, middle and end — as yaml.v3 does, or hands it over.
// This covers by construction the classes fuzzing samples: the indicators
// that end a flow scalar (",?[]{}"), comments, quotes, anchors and tags.
func TestFastPathAgreesOnEveryCharacterPair(t *testing.T) {
	// Pairs of the characters YAML gives a meaning (every ASCII
	// punctuation mark and the space) and one of each other kind.
	var chars, paired []string
	for c := ' '; c <= '~'; c++ {
		chars = append(chars, string(c))
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			paired = append(paired, string(c))
		}
	}
	chars = append(chars, "é", "–", "\u00a0", "\u3000", "\U0001F600")
	paired = append(paired, "A", "0", "é")
	shapes := []string{
		"k: %s\n", "k: A%s\n", "k: A%sB\n", "k: A %s\n",
		"k: [%s]\n", "k: [A%s]\n", "k: [A%sB]\n", "k: [A %s]\n", "k: [A, %s]\n", "k: [\"A\", B%s]\n",
		"%s: v\n", "k%s: v\n", "k: \"A%s\"\n", "k: [\"%s\"]\n",
	}
	for _, shape := range shapes {
		for _, a := range chars {
			assertSameReading(t, fmt.Sprintf(shape, a))
		}
		for _, a := range paired {
			for _, b := range paired {
				assertSameReading(t, fmt.Sprintf(shape, a+b))
			}
		}
	}
}
