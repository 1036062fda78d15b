package continuity

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"日本語", 0, ""},
		{"日本語", 1, ""},
		{"日本語", 3, "日"},
		{"日本語", 5, "日"},
		{"日本語", 6, "日本"},
		{"日本語", 9, "日本語"},
		{"a🙂b", 4, "a"},
		{"a🙂b", 5, "a🙂"},
		{"éé", 3, "é"},
		{"plain", 99, "plain"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, cutUTF8(tt.s, tt.n), "%q cut at %d", tt.s, tt.n)
	}
}

func TestSectionTruncateEveryLimit(t *testing.T) {
	sec := section{title: "Evidence", lines: []string{"- 日本語のテキストです", "- é" + strings.Repeat("ü", 30), "- 🙂🙂🙂 emoji line with words", "- last"}}
	for limit := sec.minSize(); limit <= sec.size()+2; limit++ {
		out, cut, ok := sec.truncate(limit)
		require.True(t, ok, "limit %d", limit)
		r := out.render()
		assert.LessOrEqual(t, len(r), limit, "limit %d", limit)
		assert.True(t, utf8.ValidString(r), "limit %d", limit)
		assert.Equal(t, limit < sec.size(), cut, "limit %d", limit)
		if cut {
			assert.Equal(t, CutMarker, out.lines[len(out.lines)-1], "limit %d: the marker ends the section", limit)
			assert.Greater(t, len(out.lines), 1, "limit %d: never only the marker", limit)
		}
	}
	_, _, ok := sec.truncate(sec.minSize() - 1)
	assert.False(t, ok, "below the minimum the section reports no room")
}

func TestFitEveryBudget(t *testing.T) {
	others := []section{
		{TitleReceipt, []string{"- harness: x", "- project: github.com/acme/widgets"}},
		{TitleGoal, []string{"- goal: " + strings.Repeat("é", 40)}},
		{TitleGraph, []string{"- t1 task [open]: " + strings.Repeat("日本", 30), "- t2 task [open]: two"}},
	}
	where := whereSection{facts: []string{"- status: active", "- next action: test"}, entries: []string{"  - " + strings.Repeat("🙂", 20), "  - last entry"}}
	fixed := len(briefHeading) + len(briefFooter)
	full := fixed + where.fullSize()
	for _, s := range others {
		full += s.size()
	}
	succeeded, cuts := false, 0
	for budget := 1; budget <= full*2; budget++ {
		f, err := fit(others, where, budget)
		if err != nil {
			var be *BudgetError
			require.ErrorAs(t, err, &be)
			assert.False(t, succeeded, "budget %d fails after a smaller budget fitted", budget)
			continue
		}
		succeeded = true
		got := fixed
		for i, s := range f.sections {
			got += s.size()
			if f.cut[i] {
				cuts++
			}
			assert.NotEmpty(t, s.lines, "budget %d: %s is empty", budget, s.title)
		}
		assert.LessOrEqual(t, got, budget, "budget %d", budget)
		if budget >= full+(budget+3)/4 {
			for i, c := range f.cut {
				assert.False(t, c, "budget %d cuts %s though everything fits", budget, f.sections[i].title)
			}
		}
	}
	assert.True(t, succeeded)
	assert.Positive(t, cuts, "some budgets force cuts")
}

// fullSize is the rendered size with every entry kept.
func (w whereSection) fullSize() int {
	return section{title: whereTitle, lines: append(append(append([]string{}, w.facts...), entriesLabel), w.entries...)}.size()
}
