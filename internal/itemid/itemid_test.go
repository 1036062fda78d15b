package itemid

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		id   string
		want string // "" = valid; else a part of the error
	}{
		{"issue-12", ""},
		{"PROJ-12", ""},
		{"draft-login-page", ""},
		{"v1.2_notes", ""},
		{"9", ""},
		{"issue-日本", ""},
		{strings.Repeat("a", MaxLen), ""},
		{"", "is empty"},
		{strings.Repeat("a", MaxLen+1), "not a plain folder name"},
		{"a b", "not a plain folder name"},
		{"../etc", "not a plain folder name"},
		{"a/b", "not a plain folder name"},
		{`a\b`, "not a plain folder name"},
		{".hidden", "not a plain folder name"},
		{"-flag", "not a plain folder name"},
		{"a..b", "not a plain folder name"},
		{"x.lock", "not a plain folder name"},
		{"OWNER/REPO#12", "not a plain folder name"},
		{"issue#12", "not a plain folder name"},
		{"issue-1\nissue-2: ok", "control, invisible or bidirectional"},
		{"issue-\u202e1", "control, invisible or bidirectional"},
		{"issue-\u200b1", "control, invisible or bidirectional"},
		{"issue-\u00a01", "control, invisible or bidirectional"},
		{"issue-\xff", "control, invisible or bidirectional"},
	}
	for _, tt := range tests {
		err := Check(tt.id)
		if tt.want == "" {
			assert.NoError(t, err, "%q", tt.id)
			continue
		}
		require.Error(t, err, "%q", tt.id)
		assert.Contains(t, err.Error(), tt.want, "%q", tt.id)
		assert.Contains(t, err.Error(), "spec folder name", "every refusal states the rule")
		assert.NotContains(t, err.Error(), "\n")
		assert.NotContains(t, err.Error(), "\u202e")
	}
}

// TestCheckAcceptsEveryCorpusAndFixtureFolder: the rule was read off real
// spec folders; every one of them must stay valid.
func TestCheckAcceptsEveryCorpusAndFixtureFolder(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "testdata", "repo", "docs", "specs")}
	// The corpus sits beside the repository when it is there at all.
	if corpus := filepath.Join("..", "..", "..", "shared", "corpus", "the-loop-v11.2.0", "docs", "specs"); dirExists(corpus) {
		roots = append(roots, corpus)
	}
	n := 0
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		require.NoError(t, err)
		for _, e := range entries {
			if e.IsDir() {
				assert.NoError(t, Check(e.Name()), "%s/%s", root, e.Name())
				n++
			}
		}
	}
	assert.Positive(t, n)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// The fast path takes only ids the whole rule takes, and takes the common
// ones: random strings over an alphabet of ASCII letters, digits, the
// allowed punctuation, and bytes the rule refuses.
func TestPlainAgreesWithTheRule(t *testing.T) {
	alphabet := []string{"a", "Z", "0", "9", ".", "_", "-", "..", ".lock", " ", "/", "é", "\x00", "\u202e", "x"}
	rng := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		id := b.String()
		if rng.IntN(50) == 0 {
			id = strings.Repeat("a", MaxLen-1+rng.IntN(3))
		}
		full := check(id) == nil
		if plain(id) {
			taken++
			require.True(t, full, "%q: the fast path took what the rule refuses", id)
		}
		require.Equal(t, full, Check(id) == nil, "%q", id)
	}
	assert.Greater(t, taken, 1000, "the common ids take the fast path")
	for _, id := range []string{"issue-12", "PROJ-12", "draft-login", "a.b_c-9"} {
		assert.True(t, plain(id), id)
	}
}

// FuzzPlainMatchesTheRule: whatever the id, the fast path never takes an
// id the whole rule refuses, and Check says what the whole rule says.
func FuzzPlainMatchesTheRule(f *testing.F) {
	for _, id := range []string{"issue-12", "PROJ-12", "draft-login", "a..b", "a.lock", "-a", "a/b", "é", "a\u202e", strings.Repeat("a", MaxLen+1), ""} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		full := check(id) == nil
		if plain(id) && !full {
			t.Fatalf("%q: the fast path took what the rule refuses", id)
		}
		if (Check(id) == nil) != full {
			t.Fatalf("%q: Check says %v, the rule %v", id, Check(id), check(id))
		}
	})
}
