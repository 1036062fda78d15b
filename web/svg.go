package web

import (
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
)

// Layout sizes of a drawn graph, in SVG user units.
const (
	boxW, boxH = 210, 46
	colGap     = 40
	rowGap     = 34
	margin     = 24
	backLane   = 28
)

// Box is one node to draw: its id, its state in words (written beside the
// colour) and the class that colours it.
type Box struct {
	ID    string
	State string
	Class string
}

// Link is one edge to draw.
type Link struct {
	From, To, On string
}

// Drawing is a graph to lay out: boxes in declaration order and links.
type Drawing struct {
	Title string
	Boxes []Box
	Links []Link
}

type placed struct {
	Box
	X, Y  int
	layer int
}

// layout places boxes in layers by longest path over the forward links
// (a link to a box declared later; the others are routes back), and orders
// each layer by the mean position of its predecessors. It is
// deterministic: the same drawing always gives the same picture.
func layout(d Drawing) (map[string]*placed, [][]string, int, int) {
	index := map[string]int{}
	for i, b := range d.Boxes {
		index[b.ID] = i
	}
	layer := make([]int, len(d.Boxes))
	preds := make([][]int, len(d.Boxes))
	for _, l := range d.Links {
		f, okf := index[l.From]
		t, okt := index[l.To]
		if !okf || !okt || t <= f {
			continue
		}
		preds[t] = append(preds[t], f)
	}
	for i := range d.Boxes {
		for _, p := range preds[i] {
			layer[i] = max(layer[i], layer[p]+1)
		}
	}
	depth := 0
	for _, l := range layer {
		depth = max(depth, l+1)
	}
	// Boxes no forward link reaches or leaves, other than the first (the
	// start), are side exits (escalated, cleanup): a row of their own at
	// the end.
	hasSucc := make([]bool, len(d.Boxes))
	for i := range d.Boxes {
		for _, p := range preds[i] {
			hasSucc[p] = true
		}
	}
	side := false
	for i := 1; i < len(d.Boxes); i++ {
		if len(preds[i]) == 0 && !hasSucc[i] {
			layer[i], side = depth, true
		}
	}
	if side {
		depth++
	}
	rows := make([][]string, depth)
	pos := map[string]float64{}
	for i, b := range d.Boxes {
		rows[layer[i]] = append(rows[layer[i]], b.ID)
	}
	width := 1
	for r := range rows {
		if r > 0 {
			bary := map[string]float64{}
			for _, id := range rows[r] {
				ps := preds[index[id]]
				if len(ps) == 0 {
					bary[id] = float64(index[id])
					continue
				}
				sum := 0.0
				for _, p := range ps {
					sum += pos[d.Boxes[p].ID]
				}
				bary[id] = sum / float64(len(ps))
			}
			sort.SliceStable(rows[r], func(i, j int) bool { return bary[rows[r][i]] < bary[rows[r][j]] })
		}
		for i, id := range rows[r] {
			pos[id] = float64(i)
		}
		width = max(width, len(rows[r]))
	}
	out := map[string]*placed{}
	totalW := width*boxW + (width-1)*colGap
	for r, row := range rows {
		rowW := len(row)*boxW + (len(row)-1)*colGap
		x0 := margin + backLane + (totalW-rowW)/2
		for i, id := range row {
			out[id] = &placed{Box: d.Boxes[index[id]], X: x0 + i*(boxW+colGap), Y: margin + r*(boxH+rowGap), layer: r}
		}
	}
	return out, rows, totalW + 2*margin + 2*backLane, depth*(boxH+rowGap) - rowGap + 2*margin
}

// SVG draws d: each node a box with its id and state, each forward link
// an arrow down, each route back a dashed arc on the right. Every text is
// escaped.
func SVG(d Drawing) template.HTML {
	pl, _, w, h := layout(d)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		w, h, w, h, esc(d.Title))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrowhead"/></marker></defs>`)
	right := 0
	for _, p := range pl {
		right = max(right, p.X+boxW)
	}
	backs, skips := 0, 0
	for _, l := range mergeLinks(d.Links) {
		f, t := pl[l.From], pl[l.To]
		if f == nil || t == nil || l.From == l.To {
			continue
		}
		label := ""
		if l.On != "" && l.On != "pass" {
			label = l.On
		}
		if t.layer > f.layer+1 {
			// A link over several layers runs down the left, clear of the
			// boxes between.
			skips++
			left := 0
			for _, p := range pl {
				if p.layer > f.layer && p.layer < t.layer && (left == 0 || p.X < left) {
					left = p.X
				}
			}
			lane := min(left, min(f.X, t.X)) - 10 - (skips%3)*(backLane/3)
			x1, y1 := f.X, f.Y+boxH/2
			x2, y2 := t.X, t.Y+boxH/2-6
			fmt.Fprintf(&b, `<path class="edge skip on-%s" d="M%d %d C%d %d %d %d %d %d" marker-end="url(#arrow)"><title>%s → %s (%s)</title></path>`,
				cls(l.On), x1, y1, lane-40, y1, lane-40, y2, x2, y2, esc(l.From), esc(l.To), esc(l.On))
			continue
		}
		if t.layer > f.layer {
			x1, y1 := f.X+boxW/2, f.Y+boxH
			x2, y2 := t.X+boxW/2, t.Y
			my := (y1 + y2) / 2
			fmt.Fprintf(&b, `<path class="edge on-%s" d="M%d %d C%d %d %d %d %d %d" marker-end="url(#arrow)"/>`, cls(l.On), x1, y1, x1, my, x2, my, x2, y2)
			if label != "" {
				fmt.Fprintf(&b, `<text class="edge-label" x="%d" y="%d">%s</text>`, (x1+x2)/2+4, my-2, esc(label))
			}
			continue
		}
		backs++
		lane := right + 8 + (backs%3)*(backLane/3)
		x1, y1 := f.X+boxW, f.Y+boxH/2
		x2, y2 := t.X+boxW, t.Y+boxH/2+6
		fmt.Fprintf(&b, `<path class="edge back on-%s" d="M%d %d C%d %d %d %d %d %d" marker-end="url(#arrow)"><title>%s → %s (%s)</title></path>`,
			cls(l.On), x1, y1, lane+40, y1, lane+40, y2, x2, y2, esc(l.From), esc(l.To), esc(l.On))
	}
	for _, box := range d.Boxes {
		p := pl[box.ID]
		fmt.Fprintf(&b, `<g class="node %s" data-node="%s" data-state="%s" tabindex="0" role="listitem" aria-label="%s: %s">`,
			cls(p.Class), esc(p.ID), esc(p.State), esc(p.ID), esc(p.State))
		fmt.Fprintf(&b, `<title>%s: %s</title>`, esc(p.ID), esc(p.State))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="6"/>`, p.X, p.Y, boxW, boxH)
		fmt.Fprintf(&b, `<text class="name" x="%d" y="%d">%s</text>`, p.X+10, p.Y+19, esc(clip(p.ID, 26)))
		fmt.Fprintf(&b, `<text class="state" x="%d" y="%d">%s</text>`, p.X+10, p.Y+36, esc(clip(p.State, 30)))
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above passes esc
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// cls keeps a class name to letters, digits and dashes.
func cls(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			if r == ' ' {
				return '-'
			}
			return r
		}
		return -1
	}, s)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// knownClasses are the node classes the style sheet colours.
var knownClasses = []string{"current", "done", "skipped", "blocked", "pending", "working"}

func nodeClass(c string) string {
	if slices.Contains(knownClasses, c) {
		return c
	}
	return "pending"
}

// mergeLinks folds links between the same two boxes into one, its label
// the outcomes that take it.
func mergeLinks(links []Link) []Link {
	var out []Link
	at := map[[2]string]int{}
	for _, l := range links {
		k := [2]string{l.From, l.To}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, l)
			continue
		}
		// A skip runs beside the link it skips along: say nothing of it.
		switch {
		case l.On == "pass" || l.On == "skipped":
			if out[i].On == "skipped" {
				out[i].On = l.On
			}
		case out[i].On == "pass" || out[i].On == "skipped":
			out[i].On = l.On
		default:
			out[i].On += " / " + l.On
		}
	}
	return out
}
