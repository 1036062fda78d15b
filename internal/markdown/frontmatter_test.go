package markdown

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		wantFM map[string]any
		body   string
	}{
		{"no front matter", "# Title\n", map[string]any{}, "# Title\n"},
		{"mapping", "---\nstatus: approved\nriskTier: 2\n---\n# Body\n",
			map[string]any{"status": "approved", "riskTier": 2}, "# Body\n"},
		{"four dashes still open", "----\nstatus: draft\n---\nbody",
			map[string]any{"status": "draft"}, "body"},
		{"closing line with spaces", "---\na: 1\n  ---  \nrest\n", map[string]any{"a": 1}, "rest\n"},
		{"leading blank line means none", "\n---\na: 1\n---\n", map[string]any{}, "\n---\na: 1\n---\n"},
		{"BOM means none", "\ufeff---\na: 1\n---\n", map[string]any{}, "\ufeff---\na: 1\n---\n"},
		{"unclosed", "---\na: 1\nno end\n", map[string]any{}, "---\na: 1\nno end\n"},
		{"not yaml", "---\na: [1\n---\nbody\n", map[string]any{}, "---\na: [1\n---\nbody\n"},
		{"a list is not a mapping", "---\n- a\n- b\n---\nbody\n", map[string]any{}, "---\n- a\n- b\n---\nbody\n"},
		{"a scalar is not a mapping", "---\njust text\n---\nbody\n", map[string]any{}, "---\njust text\n---\nbody\n"},
		{"empty block", "---\n---\nbody\n", map[string]any{}, "body\n"},
		{"closed at end of text", "---\na: x\n---", map[string]any{"a": "x"}, ""},
		{"crlf", "---\r\nstatus: draft\r\n---\r\nbody\r\n", map[string]any{"status": "draft"}, "body\r\n"},
		{"list values", "---\napprovedBy: [a, b]\n---\n",
			map[string]any{"approvedBy": []any{"a", "b"}}, ""},
		{"non-string keys", "---\n1: one\n---\nb", map[string]any{"1": "one"}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, body := SplitFrontMatter(tt.text)
			assert.Equal(t, tt.wantFM, fm)
			assert.Equal(t, tt.body, body)
		})
	}
}

func TestString(t *testing.T) {
	assert.Equal(t, "", String(nil))
	assert.Equal(t, "draft", String("draft"))
	assert.Equal(t, "true", String(true))
	assert.Equal(t, "3", String(3))
}

func TestSetFrontMatter(t *testing.T) {
	lock := []Field{{Key: "status", Value: "approved"}, {Key: "approvedBy", Value: []string{"alice", "bob"}}}
	tests := []struct {
		name string
		text string
		want string
	}{
		{
			name: "replaces keys in place and keeps the rest verbatim",
			text: "---\ntype: requirements   # the kind\nstatus: draft\napprovedBy: []\ncollaborators:\n    - carol\n---\n# Body\n\ntext  \n",
			want: "---\ntype: requirements   # the kind\nstatus: approved\napprovedBy: [alice, bob]\ncollaborators:\n    - carol\n---\n# Body\n\ntext  \n",
		},
		{
			name: "multi-line value is replaced whole, comment before next key kept",
			text: "---\napprovedBy:\n  - old\n  - older\n\n# who reviews\nstatus: in-review\nz: 1\n---\nbody",
			want: "---\napprovedBy: [alice, bob]\n\n# who reviews\nstatus: approved\nz: 1\n---\nbody",
		},
		{
			name: "absent keys are appended",
			text: "---\ntype: design\n---\nbody\n",
			want: "---\ntype: design\nstatus: approved\napprovedBy: [alice, bob]\n---\nbody\n",
		},
		{
			name: "no front matter gets a new block",
			text: "# Title\n\nbody\n",
			want: "---\nstatus: approved\napprovedBy: [alice, bob]\n---\n# Title\n\nbody\n",
		},
		{
			name: "empty block is filled",
			text: "---\n---\nbody",
			want: "---\nstatus: approved\napprovedBy: [alice, bob]\n---\nbody",
		},
		{
			name: "crlf line ends are kept",
			text: "---\r\nstatus: draft\r\n---\r\nbody\r\n",
			want: "---\r\nstatus: approved\r\napprovedBy: [alice, bob]\r\n---\r\nbody\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetFrontMatter(tt.text, lock...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			fm, _ := SplitFrontMatter(got)
			assert.Equal(t, "approved", fm["status"])
			assert.Equal(t, []any{"alice", "bob"}, fm["approvedBy"])
		})
	}
}

func TestSetFrontMatterRefusesWhatItCannotEditSafely(t *testing.T) {
	for name, text := range map[string]string{
		"unclosed":    "---\nstatus: draft\n# Body\n",
		"not yaml":    "---\nstatus: [draft\n---\nbody\n",
		"not mapping": "---\n- a\n---\nbody\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := SetFrontMatter(text, Field{Key: "status", Value: "approved"})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadFrontMatter)
		})
	}
	_, err := SetFrontMatter("body", Field{Key: "a: b", Value: 1})
	assert.ErrorContains(t, err, "not a plain key")
}

func TestSetFrontMatterQuotesValuesThatNeedIt(t *testing.T) {
	got, err := SetFrontMatter("body", Field{Key: "approvedBy", Value: []string{"a: b", "yes"}})
	require.NoError(t, err)
	fm, body := SplitFrontMatter(got)
	assert.Equal(t, []any{"a: b", "yes"}, fm["approvedBy"])
	assert.Equal(t, "body", body)
	assert.True(t, strings.HasPrefix(got, "---\napprovedBy: ["))
}
