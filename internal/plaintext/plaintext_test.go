package plaintext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTablesCoverTheirRanges(t *testing.T) {
	require.Len(t, latin1, 0x100-0xc0)
	require.Len(t, latinExtA, 0x180-0x100)
	assert.Equal(t, "", latin1[0xd7-0xc0], "× is a symbol")
	assert.Equal(t, "ss", latin1[0xdf-0xc0])
	assert.Equal(t, "l", latinExtA[0x142-0x100], "ł")
	assert.Equal(t, "oe", latinExtA[0x153-0x100], "œ")
	assert.Equal(t, "s", latinExtA[0x17f-0x100], "ſ")
}

func TestOwnKeepsOnlyTheAuthorsVisibleWords(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"plain", "Approved.", "Approved."},
		{"block quote", "> not\nok", ""},
		{"quote then blank", "> not\n\nok", "ok"},
		{"quote in a list", "- > not\n\nok", "ok"},
		{"fence", "```\nnot\n```\nok", "ok"},
		{"unterminated fence", "ok\n```\nnot", "ok"},
		{"indented code", "\n    not\nok", "ok"},
		{"indented continuation is text", "ok\n    more", "ok\n    more"},
		{"inline code", "a `not` b", "a   b"},
		{"double backticks", "a ``not ` x`` b", "a   b"},
		{"unmatched backtick", "a `b", "a `b"},
		{"html comment", "a <!-- not --> b", "a   b"},
		{"del", "a <del>not</del> b", "a   b"},
		{"strike", "a ~~not~~ b ~no~ c", "a   b   c"},
		{"unticked", "- [ ] not\n- [x] ok", "\n-  ok"},
		{"tags keep text", "<b>ok</b>", " ok "},
		{"a tag over lines is a tag", "<b\nclass=x>ok", "ok"},
		{"a tag does not reach over a blank line", "<a\n\n> not", "<a"},
		{"a tag does not reach into a quote", "<a\n   > not", "<a"},
		{"a hiding tag does not reach over a blank line", "<pre\n\nok\n>not</pre>", "<pre\n\nok"},
		{"a closing tag does not reach over a blank line", "<pre>not</pre\n\n> x", ""},
		{"entity", "&#110;ot", "not"},
		{"link destination", "[ok](https://x/not)", "[ok] "},
		{"image", "![not](x.png)", " "},
		{"bare url", "see https://x/not-ready", "see  "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, strings.TrimSpace(tt.want), strings.TrimSpace(Own(tt.body)))
		})
	}
}

func TestOwnLinesKeepLineNumbers(t *testing.T) {
	for _, body := range []string{"a\n<!--\nb\n-->\nc", "a <del>\nb</del>\nc", "x <b\nclass=y>\nc", "a\n<!-- open\nb\nc"} {
		assert.Len(t, OwnLines(body), len(Lines(body)), body)
	}
}

func TestFold(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"Approved", "approved", nil},
		{"n\u200bot", "not", nil},
		{"n\u00adot", "not", nil},
		{"no\u0301t", "not", nil},
		{"n\u043et", "", ErrMixedScript},
		{"\u0274\u1d0f\u1d1b", "not", nil},
		{"ｎｏｔ", "not", nil},
		{"\U0001d427\U0001d428\U0001d42d", "not", nil},
		{"nöt", "not", nil},
		{"can’t", "can't", nil},
		{"a — b", "a  -  b", nil},
		{"ok？", "ok?", nil},
		{"👍", string(Benign), nil},
		{"ⓝ", string(Symbol), nil},
		{"a\u202eb", "", ErrBidi},
		{"a\u2066b", "", ErrBidi},
		{"a\x1bb", "", ErrControl},
		{"n\u022ft", "", ErrUnfoldable},
		{"не", "", ErrUnfoldable},
		{"ok\U000e0020\U000e006e", "", ErrInvisible},
		{"ok\u200b\u200b\u200bx", "", ErrInvisible},
		{"ok\ue000", "", ErrUndisplayable},
		{"ok\xff", "", ErrUndisplayable},
		{"ok\U000e0100", "ok", nil},
		{"👍🏽 ❤\ufe0f", string(Benign) + " " + string(Benign), nil},
		{"🙄", string(Symbol), nil},
		{"a\ufffcb", "a" + string(Hidden) + "b", nil},
	}
	for _, tt := range tests {
		got, err := Fold(tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		if tt.err == nil {
			assert.NoError(t, err, tt.in)
		} else {
			assert.ErrorIs(t, err, tt.err, tt.in)
		}
	}
}

func TestUnreadableSaysWhereNeverWhat(t *testing.T) {
	_, err := Fold("Approved\nfine\u202e secret")
	var u *Unreadable
	require.ErrorAs(t, err, &u)
	assert.Equal(t, 2, u.Line)
	assert.Equal(t, 5, u.Column)
	assert.Equal(t, "line 2, character 5 (U+202E)", u.Where())
	assert.NotContains(t, err.Error(), "secret")
	_, err = Fold("ok n\u022ft")
	require.ErrorAs(t, err, &u)
	assert.Equal(t, [2]int{1, 5}, [2]int{u.Line, u.Column})
}

func TestMarkedKeepsAMarkWhereInlineCodeAndStrikeStood(t *testing.T) {
	for body, want := range map[string]string{
		"Approved `not`":                              "Approved \ufffc",
		"Approved ~~not~~":                            "Approved \ufffc",
		"Approved <del>not</del>":                     "Approved \ufffc",
		"> not\n\nApproved":                           "\n\nApproved",
		"<details><summary>LGTM</summary>x</details>": "\ufffc",
		"[//]: # (not)\nApproved":                     "\ufffc\nApproved",
		"Approved <!-- not -->":                       "Approved \ufffc",
	} {
		assert.Equal(t, want, Marked(body), body)
	}
	assert.Equal(t, "Approved  ", Own("Approved `not`"))
}
