// Package nearest finds the known words closest to a mistyped one, for the
// "did you mean" of every refusal: commands, verbs, flags, loops and work
// item ids.
package nearest

import (
	"slices"
	"strings"
)

// Close returns the candidates a typo of word most likely meant, nearest
// first: those at the smallest edit distance within a small bound (a third
// of the word's length, at least one, at most three edits; case ignored),
// and those word is with one part left out (a prefix, a suffix, or a part
// in between, such as pdlc-work-loop for pdlc-work-item-loop).
func Close(word string, candidates []string) []string {
	if word == "" {
		return nil
	}
	lw := []rune(strings.ToLower(word))
	limit := min(max(len(lw)/3, 1), 3)
	best := limit + 1
	for _, c := range candidates {
		best = min(best, Distance(string(lw), strings.ToLower(c)))
	}
	var out []scored
	for _, c := range candidates {
		lc := []rune(strings.ToLower(c))
		if d := Distance(string(lw), string(lc)); (d == best && d <= limit) || partLeftOut(lw, lc) {
			out = append(out, scored{c, d})
		}
	}
	return names(out, len(out))
}

// partLeftOut reports whether w is c with one contiguous part removed.
func partLeftOut(w, c []rune) bool {
	if len(w) >= len(c) {
		return false
	}
	p := 0
	for p < len(w) && w[p] == c[p] {
		p++
	}
	s := 0
	for s < len(w)-p && w[len(w)-1-s] == c[len(c)-1-s] {
		s++
	}
	return p+s >= len(w)
}

// Ranked returns the n candidates nearest to word by edit distance
// (case ignored), nearest first; ties keep the candidates' order.
func Ranked(word string, candidates []string, n int) []string {
	out := make([]scored, 0, len(candidates))
	for _, c := range candidates {
		out = append(out, scored{c, Distance(strings.ToLower(word), strings.ToLower(c))})
	}
	return names(out, n)
}

type scored struct {
	name string
	d    int
}

func names(s []scored, n int) []string {
	slices.SortStableFunc(s, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(s)))
	for _, x := range s[:min(n, len(s))] {
		out = append(out, x.name)
	}
	return out
}

// Distance is the optimal-string-alignment distance between a and b, in
// runes: insertions, deletions, substitutions and swaps of two adjacent
// runes each cost one.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// Phrase renders candidates as a suggestion: "" for none, else
// `did you mean "a"?` or `did you mean "a", "b" or "c"?`.
func Phrase(candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	q := make([]string, len(candidates))
	for i, c := range candidates {
		q[i] = `"` + c + `"`
	}
	if len(q) == 1 {
		return "did you mean " + q[0] + "?"
	}
	return "did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}
