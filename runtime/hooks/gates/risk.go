package gates

import (
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// SensitivePatterns are the paths whose mention in tasks.md or design.md
// raises a work item's risk tier to at least 4.
var SensitivePatterns = []string{"**/*schema*", ".the-loop/**", ".github/workflows/**", "**/auth/**", "**/*secret*", "**/*credential*"}

// DefaultRiskTier applies when nothing declares or raises the tier.
const DefaultRiskTier = 3

// sensitiveTier is the floor a sensitive path raises the tier to.
const sensitiveTier = 4

// tierSources are read, in order, for a declared riskTier.
var tierSources = []string{"requirements.md", "bugfix.md", "design.md"}

// RiskTier returns the work item's risk tier, 1 to 5. The declared tier is
// the front matter riskTier (a whole number 1–5) of the first of
// requirements.md, bugfix.md and design.md that exists. The inferred tier is
// 3, raised to 4 when tasks.md or design.md mentions a path matching
// SensitivePatterns (or cannot be read, so a hidden mention cannot lower
// it). A declared tier at or above the inferred one stands. A declared tier
// BELOW it is honoured only when its artifact is locked by a recorded human
// gate decision — status: approved in its front matter and an approving
// decision from an authorized reviewer on the gate that locks it — because
// the agent writes these files and must not be able to lower its own tier.
func RiskTier(hc *runtime.HookContext) int {
	v, _ := hc.Cache.Do("risk-tier\x00"+hc.WorkItem.SpecDir, func() (any, error) { return riskTier(hc), nil })
	return v.(int)
}

func riskTier(hc *runtime.HookContext) int {
	d, err := specdir.Open(hc)
	if err != nil {
		return DefaultRiskTier
	}
	defer d.Close()
	inferred := DefaultRiskTier
	for _, name := range []string{"tasks.md", "design.md"} {
		if inferred == sensitiveTier || !d.Present(name) {
			continue // one mention is enough
		}
		text, err := d.Read(name)
		if err != nil || mentionsSensitivePath(text) {
			inferred = sensitiveTier
		}
	}
	for _, name := range tierSources {
		if !d.Present(name) {
			continue
		}
		text, err := d.Read(name)
		if err != nil {
			return inferred
		}
		fm := d.Parse(name, text).FrontMatter
		tier, ok := fm["riskTier"].(int)
		if !ok || tier < 1 || tier > 5 {
			return inferred
		}
		if tier >= inferred || lockedByHumanGate(hc, name, fm, text) {
			return tier
		}
		return inferred
	}
	return inferred
}

// lockedByHumanGate reports an artifact whose front matter says approved and
// whose locking gate (the node whose lock-artifacts entry names it) holds a
// recorded approval from an authorized reviewer.
func lockedByHumanGate(hc *runtime.HookContext, name string, fm map[string]any, text string) bool {
	if markdown.String(fm["status"]) != "approved" || hc.Graph == nil || hc.State == nil {
		return false
	}
	for _, n := range hc.Graph.Nodes {
		for _, e := range n.Exit {
			if e.Hook != artifacts.HookLock || !gateEntryNames(e.With["artifacts"], name) {
				continue
			}
			d, ok := hc.State.Decisions[n.ID]
			// The approval must cover these very bytes: the lock recorded
			// their hash in the signed decision.
			if ok && d != nil && d.Via == gateViaComment && (d.Outcome == runtime.OutcomeApproved || d.Outcome == runtime.OutcomeApprovedWithComments) &&
				artifacts.LockedHashOf(d, name) == handoff.HashLF([]byte(text)) {
				return true
			}
		}
	}
	return false
}

// gateEntryNames reports whether a param value (an entry or a list of
// entries, with "|" alternatives) names name.
func gateEntryNames(v any, name string) bool {
	var entries []string
	switch x := v.(type) {
	case string:
		entries = []string{x}
	case []string:
		entries = x
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				entries = append(entries, s)
			}
		}
	}
	for _, e := range entries {
		for _, alt := range runtime.Alternatives(e) {
			if alt == name {
				return true
			}
		}
	}
	return false
}

// mentionsSensitivePath reports a path-like token in text matching one of
// SensitivePatterns (compared case-insensitively over ASCII: raising the
// tier is the safe direction). It is one pass over the text through a byte
// table, and reads each path-like token in place, with no copy.
func mentionsSensitivePath(text string) bool {
	// Only a token holding a '/' or a '.' can be a path: the scan jumps
	// from one such mark to the next (strings.IndexByte, which reads many
	// bytes at a time) and reads just the token around it.
	slash, dot := -2, -2 // the next of each at or after i; -1: none left
	for i := 0; i < len(text); {
		if slash != -1 && slash < i {
			slash = indexFrom(text, i, '/')
		}
		if dot != -1 && dot < i {
			dot = indexFrom(text, i, '.')
		}
		mark := slash
		if mark < 0 || (dot >= 0 && dot < mark) {
			mark = dot
		}
		if mark < 0 {
			return false
		}
		start, end := mark, mark
		for start > i && pathBytes[text[start-1]]&endsToken == 0 {
			start--
		}
		for end < len(text) && pathBytes[text[end]]&endsToken == 0 {
			end++
		}
		if sensitivePath(strings.TrimRight(text[start:end], ".:!?")) {
			return true
		}
		i = end + 1
	}
	return false
}

// indexFrom is the index in s of the first c at or after from, -1 if none.
func indexFrom(s string, from int, c byte) int {
	if j := strings.IndexByte(s[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// Classes of pathBytes.
const (
	endsToken = 1 << iota // white space and the punctuation around paths in prose
	marksPath             // '/' or '.': the token may be a path
)

// pathBytes classifies every byte for mentionsSensitivePath.
var pathBytes = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r`'\"()[]<>{},;|*") {
		t[c] = endsToken
	}
	t['/'], t['.'] = marksPath, marksPath
	return t
}()

// sensitivePath reports a path-like token (any case) that matches one of
// SensitivePatterns.
func sensitivePath(tok string) bool {
	slash := strings.IndexByte(tok, '/') >= 0
	dot := strings.LastIndexByte(tok, '.')
	if !slash && !strings.HasPrefix(tok, ".") && (dot <= 0 || dot == len(tok)-1) {
		return false // prose, not a path
	}
	body := strings.Trim(strings.TrimPrefix(tok, "./"), "/")
	last := body[strings.LastIndexByte(body, '/')+1:]
	if markdown.ContainsFoldASCII(last, "schema") || markdown.ContainsFoldASCII(last, "secret") || markdown.ContainsFoldASCII(last, "credential") {
		return true
	}
	afterGitHub := false
	for seg := range strings.SplitSeq(body, "/") {
		switch {
		case markdown.EqualFoldASCII(seg, ".the-loop"):
			return true
		case afterGitHub && markdown.EqualFoldASCII(seg, "workflows"):
			return true
		case slash && markdown.EqualFoldASCII(seg, "auth"):
			return true
		}
		afterGitHub = markdown.EqualFoldASCII(seg, ".github")
	}
	return false
}
