package markdown

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func yamlMap(t *testing.T, raw string) (map[string]any, bool) {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
		return nil, false
	}
	if v == nil {
		return map[string]any{}, true
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// The fast path must agree with yaml.v3 wherever it answers.
func TestSimpleYAMLAgreesWithTheFullParser(t *testing.T) {
	cases := []string{
		"status: approved\n",
		"status: approved             # draft | in-review | approved\napprovedBy: []\n",
		"riskTier: 4   # why\ntags: [a, b, c]\n",
		"a: \nb: ~\nc: null\nd: true\ne: False\n",
		"approvedBy: [\"@owner\", bob]\n",
		"workItem: \"github:o/r#239\"\n",
		"# only a comment\n\n",
		"n: 007\n", "n: 1.5\n", "d: 2026-07-28\n", "y: yes\n", "o: {}\n",
		"k: 'single'\n", "k: a: b\n", "nested:\n  child: 1\n", "k: [a, [b]]\n",
		"k: \"esc\\\"aped\"\n", "k: -1\n", "k: -item\n", "dup: 1\ndup: 2\n",
		"list:\n  - a\n", "status: approved\n                             # indented comment\n",
		"k: value with spaces and – dash\n", "k: http://x.test/a#frag\n", "k: a #c\n",
	}
	for _, c := range cases {
		got, ok := parseSimpleYAML(c)
		if !ok {
			continue
		}
		want, wok := yamlMap(t, c)
		require.True(t, wok, "the fast path accepted what yaml refuses: %q", c)
		assert.Equal(t, want, got, "input %q", c)
	}
	_, ok := parseSimpleYAML("status: approved\n")
	assert.True(t, ok, "the common case takes the fast path")
}

// Every front matter of the shared corpus, when present, parses the same both ways.
func TestSimpleYAMLOnTheCorpus(t *testing.T) {
	root, _ := filepath.Abs("../../../shared/corpus/the-loop-v11.2.0/docs/specs")
	if _, err := os.Stat(root); err != nil {
		t.Skip("the shared corpus is absent")
	}
	fast, total := 0, 0
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		bounds := locateFrontMatter(string(b))
		if !bounds.ok {
			return nil
		}
		raw := string(b)[bounds.yamlStart:bounds.yamlEnd]
		total++
		if got, ok := parseSimpleYAML(raw); ok {
			fast++
			want, wok := yamlMap(t, raw)
			require.True(t, wok, p)
			assert.Equal(t, want, got, p)
		}
		return nil
	}))
	t.Logf("fast path took %d of %d front matters", fast, total)
}

func TestSimpleYAMLFlowAndQuotes(t *testing.T) {
	for _, c := range []string{
		"approvedBy: [\"@o (PR #110: \\\"go ahead\\\", 2026-07-28)\"]   # note\n",
		"overrides: {}\n",
		"l: [\"a, b\", c, \"d\"]\n",
		"l: [a, ]\n",
		"l: [\"\\n\"]\n",
	} {
		got, ok := parseSimpleYAML(c)
		want, wok := yamlMap(t, c)
		if ok {
			require.True(t, wok, c)
			assert.Equal(t, want, got, c)
		}
	}
	got, ok := parseSimpleYAML("approvedBy: [\"@o (PR #1: \\\"yes\\\")\"]\noverrides: {}\n")
	require.True(t, ok)
	assert.Equal(t, []any{`@o (PR #1: "yes")`}, got["approvedBy"])
}
