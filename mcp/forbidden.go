package mcp

import (
	"fmt"
	"strings"
)

// The MCP surface never lets a model decide what a human must decide: no
// tool may force a transition, declare a skip, tick or answer a checklist,
// approve a gate, or change configuration. The lists below are matched
// against the words of a tool name (split on "_" and "-"), and the
// argument list against argument names, so a "force" flag cannot slip in
// through an allowed tool either.

// forbiddenToolWords maps a word to the reason it is refused.
var forbiddenToolWords = map[string]string{
	"force":         "forcing a transition",
	"skip":          "declaring a skip",
	"waive":         "declaring a skip",
	"bypass":        "bypassing a gate",
	"override":      "overriding a gate",
	"tick":          "ticking a checklist",
	"untick":        "ticking a checklist",
	"checkbox":      "ticking a checklist",
	"answer":        "answering a checklist",
	"approve":       "approving a gate",
	"approval":      "approving a gate",
	"signoff":       "approving a gate",
	"config":        "changing configuration",
	"configure":     "changing configuration",
	"configuration": "changing configuration",
	"setting":       "changing configuration",
	"settings":      "changing configuration",
}

// forbiddenArgumentWords are refused as argument names.
var forbiddenArgumentWords = map[string]string{
	"force":    "forcing a transition",
	"skip":     "declaring a skip",
	"bypass":   "bypassing a gate",
	"override": "overriding a gate",
	"approve":  "approving a gate",
	"approved": "approving a gate",
	"tick":     "ticking a checklist",
	"answer":   "answering a checklist",
}

// CheckToolName returns an error when name contains a word reserved for
// human decisions (force, skip, tick, answer, approve, config, ...).
func CheckToolName(name string) error {
	if w, why := matchWord(name, forbiddenToolWords); w != "" {
		return fmt.Errorf("tool %q is forbidden: %q means %s, which only an authorized human may do on the ticket", name, w, why)
	}
	return nil
}

// CheckArgumentName returns an error when an argument name would let a
// model force, skip, approve or answer through an otherwise allowed tool.
func CheckArgumentName(name string) error {
	if w, why := matchWord(name, forbiddenArgumentWords); w != "" {
		return fmt.Errorf("argument %q is forbidden: %q means %s, which only an authorized human may do on the ticket", name, w, why)
	}
	return nil
}

// matchWord splits s into lower-case words on "_", "-" and camelCase
// boundaries and returns the first word found in words.
func matchWord(s string, words map[string]string) (string, string) {
	for _, w := range splitWords(s) {
		if why, ok := words[w]; ok {
			return w, why
		}
	}
	return "", ""
}

func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, strings.ToLower(cur.String()))
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case r >= 'A' && r <= 'Z':
			flush()
			cur.WriteRune(r)
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return words
}
