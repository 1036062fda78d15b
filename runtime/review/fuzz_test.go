package review

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecide checks that no record, however written, panics the rules or
// counts a critic round without a recorded, available run behind it.
func FuzzDecide(f *testing.F) {
	f.Add(criticDoc("| 1 | codex | cr-1 | 3 | 3 | |", "| 2 | cursor | cr-3 | 0 | 0 | |"))
	f.Add(criticDoc("| 1 | codex | cr-hung | 0 | 0 | |"))
	f.Add("| Round | Critic | Run | Findings | New findings |\n|-|-|-|-|-|\n| 1 | codex | cr-1 \\| x | 0 | 0 |\n")
	f.Add("<!-- | Round |\n|---|\n-->\n```\n| Round |\n|---|\n```\n| Round | Critic | Run | Findings | New findings |\n|:-:|---|---|---|---|\n|1|codex|cr-2|0|0|")
	f.Fuzz(func(t *testing.T, doc string) {
		byID := map[string]Run{}
		for _, r := range recorded {
			byID[r.ID] = r
		}
		v := Decide(Critic, doc, twoCritics, recorded)
		counted := 0
		seen := map[string]bool{}
		for _, row := range v.Rows {
			if !row.Counts {
				continue
			}
			counted++
			run, ok := byID[row.RunID]
			require.True(t, ok, "row %+v counts without a recorded run", row)
			require.Equal(t, run.Critic, row.Critic)
			require.Empty(t, run.Unavailable)
			require.False(t, seen[row.RunID], "run %s counted twice", row.RunID)
			seen[row.RunID] = true
		}
		require.LessOrEqual(t, v.Counted, counted)
		if v.Outcome == Pass {
			require.Positive(t, v.Counted)
		}
		_ = Decide(Self, doc, Policy{}, nil)
	})
}
