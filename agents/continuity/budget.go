package continuity

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

const (
	briefHeading = "# Session continuity brief\n\n"
	briefFooter  = ContinuationLine + "\n"
	// minCut is the least text a truncated section keeps before its marker.
	minCut  = 16
	partial = " …"
)

// BudgetError means the brief cannot fit its budget with every required
// section non-empty; no brief is emitted.
type BudgetError struct {
	Section string `json:"section"`
	Budget  int    `json:"budget"`
	Need    int    `json:"need"`
	Have    int    `json:"have"`
}

// Error names the section that lacks room.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("continuity: a %d-byte brief leaves no room for section %q (it needs at least %d bytes, %d remain); no brief emitted", e.Budget, e.Section, e.Need, e.Have)
}

// section is one "## Title" block of the brief.
type section struct {
	title string
	lines []string
}

func (s section) head() string { return "## " + s.title + "\n" }

func (s section) render() string {
	var b strings.Builder
	b.WriteString(s.head())
	for _, l := range s.lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

func (s section) size() int { return len(s.render()) }

// minSize is the smallest non-empty rendering: the whole section, or a
// minCut-byte start of it followed by the cut marker.
func (s section) minSize() int {
	return min(s.size(), len(s.head())+minCut+len(partial)+1+len(CutMarker)+1+1)
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncate fits s into limit bytes. A truncated section keeps whole lines,
// then part of the next line when room allows, and ends with the cut
// marker, with nothing after it. ok is false when not even minSize fits.
func (s section) truncate(limit int) (out section, cut, ok bool) {
	if s.size() <= limit {
		return s, false, true
	}
	if limit < s.minSize() {
		return s, false, false
	}
	avail := limit - len(s.head()) - 1 - (len(CutMarker) + 1)
	out = section{title: s.title}
	for _, l := range s.lines {
		if len(l)+1 <= avail {
			out.lines = append(out.lines, l)
			avail -= len(l) + 1
			continue
		}
		if room := avail - 1 - len(partial); room >= minCut {
			if p := strings.TrimRight(cutUTF8(l, room), " "); p != "" {
				out.lines = append(out.lines, p+partial)
			}
		}
		break
	}
	out.lines = append(out.lines, CutMarker)
	return out, true, true
}

// fitted is the brief's sections after budgeting.
type fitted struct {
	sections []section
	cut      []bool
}

// fit budgets the ordinary sections and then Where it stopped. At least a
// quarter of the budget is held back for Where it stopped; the rest is
// shared fairly (smallest demands satisfied first) among the others.
func fit(others []section, where whereSection, budget int) (fitted, error) {
	fixed := len(briefHeading) + len(briefFooter)
	reserve := (budget + 3) / 4
	avail := budget - fixed - reserve
	alloc := make([]int, len(others))
	sumMin := 0
	for i, s := range others {
		alloc[i] = s.minSize()
		sumMin += alloc[i]
		if sumMin > avail {
			return fitted{}, &BudgetError{Section: s.title, Budget: budget, Need: alloc[i], Have: max(0, avail-(sumMin-alloc[i]))}
		}
	}
	order := make([]int, len(others))
	for i := range order {
		order[i] = i
	}
	demand := func(i int) int { return others[i].size() - alloc[i] }
	sort.SliceStable(order, func(a, b int) bool { return demand(order[a]) < demand(order[b]) })
	rem := avail - sumMin
	for k, i := range order {
		give := min(demand(i), rem/(len(order)-k))
		alloc[i] += give
		rem -= give
	}
	var f fitted
	used := 0
	for i, s := range others {
		out, cut, ok := s.truncate(alloc[i])
		if !ok {
			return fitted{}, &BudgetError{Section: s.title, Budget: budget, Need: s.minSize(), Have: alloc[i]}
		}
		f.sections = append(f.sections, out)
		f.cut = append(f.cut, cut)
		used += out.size()
	}
	w, cut, err := where.fit(budget - fixed - used)
	if err != nil {
		err.Budget = budget
		return fitted{}, err
	}
	f.sections = append(f.sections, w)
	f.cut = append(f.cut, cut)
	return f, nil
}

// whereSection is Where it stopped: death-point facts that always stay, and
// the final entries, of which the newest are kept.
type whereSection struct {
	facts   []string
	entries []string
}

const (
	whereTitle   = "Where it stopped"
	entriesLabel = "- final entries:"
)

func (w whereSection) fit(limit int) (section, bool, *BudgetError) {
	base := section{title: whereTitle, lines: w.facts}
	if base.size() > limit {
		out, cut, ok := base.truncate(limit)
		if !ok {
			return section{}, false, &BudgetError{Section: whereTitle, Need: base.minSize(), Have: limit}
		}
		return out, cut, nil
	}
	// Keep the newest entries: find the smallest k such that the facts,
	// entries[k:] and (when k > 0) the marker fit.
	size := base.size()
	suffix := make([]int, len(w.entries)+1)
	for i := len(w.entries) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + len(w.entries[i]) + 1
	}
	for k := 0; k <= len(w.entries); k++ {
		need := size
		if k < len(w.entries) {
			need += len(entriesLabel) + 1 + suffix[k]
		}
		if k > 0 {
			need += len(CutMarker) + 1
		}
		if need > limit {
			continue
		}
		lines := append([]string{}, w.facts...)
		if k < len(w.entries) {
			lines = append(append(lines, entriesLabel), w.entries[k:]...)
		}
		if k > 0 {
			lines = append(lines, CutMarker)
		}
		return section{title: whereTitle, lines: lines}, k > 0, nil
	}
	// Not even the facts plus the marker fit: cut inside the facts.
	all := section{title: whereTitle, lines: append(append(append([]string{}, w.facts...), entriesLabel), w.entries...)}
	out, cut, ok := all.truncate(limit)
	if !ok {
		return section{}, false, &BudgetError{Section: whereTitle, Need: all.minSize(), Have: limit}
	}
	return out, cut, nil
}
