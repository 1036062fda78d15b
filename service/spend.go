package service

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/store"
)

// costText says what sessions cost: a sum over the known costs, and how
// many sessions' cost is unknown — never an unknown cost as $0.
func costText(cost float64, sessions, unknown int) string {
	switch {
	case unknown == 0:
		return fmt.Sprintf("$%.2f", cost)
	case unknown >= sessions:
		return "cost unknown"
	}
	return fmt.Sprintf("$%.2f (the cost of %d session(s) unknown)", cost, unknown)
}

// spendText says what sessions used: "3 session(s), 45 turns, 220000
// tokens, $2.10".
func spendText(sp store.Spend) string {
	return fmt.Sprintf("%d session(s), %d turns, %d tokens, %s", sp.Sessions, sp.Turns, sp.Tokens, costText(sp.CostUSD, sp.Sessions, sp.UnknownCost))
}

// figuresText says what an escalated item's sessions used.
func figuresText(f sessions.Figures) string {
	cost := fmt.Sprintf("$%.2f", f.CostUSD)
	if f.UnknownCost > 0 {
		cost = fmt.Sprintf("$%.2f and the cost of %d session(s) unknown", f.CostUSD, f.UnknownCost)
	}
	return fmt.Sprintf("%d turns, %d tokens, %s", f.Turns, f.Tokens, cost)
}

// sessionCost says one session's cost: "$0.18", "$0.18 (estimated)" or
// "cost unknown".
func sessionCost(u store.SessionUsage) string {
	switch u.CostSource {
	case store.CostReported:
		return fmt.Sprintf("$%.2f", u.CostUSD)
	case store.CostEstimated:
		return fmt.Sprintf("$%.2f (estimated)", u.CostUSD)
	}
	return "cost unknown"
}

// HarnessSpend is what one harness's sessions used, among those listed.
type HarnessSpend struct {
	Harness     string  `json:"harness"`
	Sessions    int     `json:"sessions"`
	Turns       int     `json:"turns"`
	Tokens      int64   `json:"tokens"`
	CostUSD     float64 `json:"costUsd"`
	UnknownCost int     `json:"unknownCost"`
}

// Text says it in one line: "codex: 2 session(s), 14 turns, 35780 tokens, $0.17".
func (h HarnessSpend) Text() string {
	return h.Harness + ": " + spendText(store.Spend{Sessions: h.Sessions, Turns: h.Turns, Tokens: h.Tokens, CostUSD: h.CostUSD, UnknownCost: h.UnknownCost})
}

// byHarness sums sessions per harness, in harness order.
func byHarness(views []SessionView) []HarnessSpend {
	sums := map[string]*HarnessSpend{}
	for _, v := range views {
		h := sums[v.Harness]
		if h == nil {
			h = &HarnessSpend{Harness: v.Harness}
			sums[v.Harness] = h
		}
		h.Sessions++
		h.Turns += v.Turns
		h.Tokens += v.Tokens
		if v.CostSource == "" {
			h.UnknownCost++
		} else {
			h.CostUSD += v.CostUSD
		}
	}
	out := make([]HarnessSpend, 0, len(sums))
	for _, h := range sums {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Harness < out[j].Harness })
	return out
}

// spentLines are the status comment's spend: one line, and one more per
// harness when more than one worked the item.
func spentLines(all store.Spend, by []store.Spend) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- **spent so far:** %s\n", spendText(all))
	if len(by) > 1 {
		for _, h := range by {
			fmt.Fprintf(&b, "  - %s: %s\n", h.Harness, spendText(h))
		}
	} else if len(by) == 1 {
		return fmt.Sprintf("- **spent so far:** %s, harness %s\n", spendText(all), by[0].Harness)
	}
	return b.String()
}

// resumeCommand is how a human continues a recorded session by hand ("" =
// its harness has no way, or is no longer configured).
func (s *Service) resumeCommand(name, id, transcript string) string {
	c, ok := s.cfg.Harnesses[name]
	if !ok || id == "" {
		return ""
	}
	a := harness.AdapterOf(c)
	if a == nil {
		return ""
	}
	return a.Resume(c, id, filepath.Dir(transcript))
}
