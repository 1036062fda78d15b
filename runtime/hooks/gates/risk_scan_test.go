package gates

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/the-loop/the-loop/internal/markdown"
)

// The one-pass scan answers as the reference does: on texts built from the
// characters and words the scan cares about (separators, '/', '.', the
// patterns' words in any case, look-alike letters a Unicode fold would
// match), and on every artifact of the shared corpus when it is present.
func TestSensitiveScanEqualsTheReference(t *testing.T) {
	parts := []string{" ", "\t", "\n", "`", "'", "\"", "(", ")", "[", "]", "<", ">", "{", "}", ",", ";", "|", "*",
		"/", ".", "./", ":", "!", "?", "a", "Z", "schema", "SeCrEt", "credentials", ".the-loop", ".GitHub", "workflows",
		"WORKFLOWS", "auth", "Auth", "x.go", "src", "docs", "ſecret", "wor\u212aflows", "é", "\u00a0"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		for n := r.IntN(12); n >= 0; n-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		text := b.String()
		if got, want := mentionsSensitivePath(text), referenceMentionsSensitivePath(text); got != want {
			t.Fatalf("mentionsSensitivePath(%q) = %t, the reference says %t", text, got, want)
		}
	}
	root, _ := filepath.Abs("../../../../shared/corpus/the-loop-v11.2.0/docs/specs")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		text := string(b)
		if got, want := mentionsSensitivePath(text), referenceMentionsSensitivePath(text); got != want {
			t.Errorf("%s: mentionsSensitivePath = %t, the reference says %t", p, got, want)
		}
		return nil
	})
}

// referenceMentionsSensitivePath is the scan as first written — a token
// at a time, lowercased — kept as the reference the one-pass scan must
// equal.
func referenceMentionsSensitivePath(text string) bool {
	// One pass over the tokens; only path-like ones (a slash, a leading dot,
	// or an extension) are lowercased and examined.
	for i := 0; i < len(text); {
		for i < len(text) && referenceIsPathSeparator(text[i]) {
			i++
		}
		start := i
		pathLike := false
		for i < len(text) && !referenceIsPathSeparator(text[i]) {
			if c := text[i]; c == '/' || c == '.' {
				pathLike = true
			}
			i++
		}
		if pathLike && referenceSensitivePath(strings.TrimRight(markdown.LowerASCII(text[start:i]), ".:!?")) {
			return true
		}
	}
	return false
}

// referenceIsPathSeparator ends a token: white space and the punctuation around paths in prose.
func referenceIsPathSeparator(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || strings.IndexByte("`'\"()[]<>{},;|*", c) >= 0
}

func referenceSensitivePath(tok string) bool {
	slash := strings.Contains(tok, "/")
	dot := strings.LastIndexByte(tok, '.')
	if !slash && !strings.HasPrefix(tok, ".") && (dot <= 0 || dot == len(tok)-1) {
		return false // prose, not a path
	}
	segs := strings.Split(strings.Trim(strings.TrimPrefix(tok, "./"), "/"), "/")
	last := segs[len(segs)-1]
	if strings.Contains(last, "schema") || strings.Contains(last, "secret") || strings.Contains(last, "credential") {
		return true
	}
	for i, s := range segs {
		switch {
		case s == ".the-loop":
			return true
		case s == ".github" && i+1 < len(segs) && segs[i+1] == "workflows":
			return true
		case s == "auth" && slash:
			return true
		}
	}
	return false
}
