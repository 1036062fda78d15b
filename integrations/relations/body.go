package relations

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// Found is one relation read from a ticket's body.
type Found struct {
	Ref  integrations.Ref
	Kind integrations.RelationKind
	Via  string // "task-list" or "body"
}

var (
	// taskItem is a task-list item; its first word may be a reference.
	taskItem = regexp.MustCompile(`^\s*[-*+]\s+\[[ xX]\]\s+(\S+)`)
	// relationLine is "Blocked by: …", "Depends on: …" or "Blocks: …",
	// optionally as a list item and in bold.
	relationLine = lazyre.New(`(?i)^\s*(?:[-*+]\s+)?(?:\*\*|__)?(blocked by|depends on|blocks)\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?(.*)$`)
	fence        = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	separators   = regexp.MustCompile(`[,;\s]+`)
)

// ScanBody reads the relations written in a ticket's body, relative to home:
// a task-list item whose first word is a reference ("- [ ] #12",
// "- [x] jira:PROJ-3") names a child; a line "Blocked by: …" or
// "Depends on: …" names tickets home waits for, and "Blocks: …" tickets
// that wait for home (references separated by commas or spaces). Fenced
// code and quoted lines are skipped. A task-list item that does not start
// with a reference is an ordinary task; a word in a relation line that is
// not a reference is reported in problems.
func ScanBody(body string, home integrations.Ref) (found []Found, problems []string) {
	inFence := false
	seen := map[string]bool{}
	add := func(ref integrations.Ref, kind integrations.RelationKind, via string) {
		k := string(kind) + " " + Key(ref)
		if Key(ref) == Key(home) || seen[k] {
			return
		}
		seen[k] = true
		found = append(found, Found{Ref: ref, Kind: kind, Via: via})
	}
	for i, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence || strings.HasPrefix(strings.TrimSpace(line), ">") {
			continue
		}
		if m := relationLine().FindStringSubmatch(line); m != nil {
			kind := integrations.RelBlockedBy
			if strings.EqualFold(m[1], "blocks") {
				kind = integrations.RelBlocking
			}
			for _, word := range separators.Split(strings.Trim(m[2], "*_ "), -1) {
				word = trimWord(word)
				if word == "" || strings.EqualFold(word, "and") {
					continue
				}
				ref, err := Parse(word, home)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s line %d: %v", home, i+1, err))
					continue
				}
				add(ref, kind, "body")
			}
			continue
		}
		if m := taskItem.FindStringSubmatch(line); m != nil {
			if ref, err := Parse(trimWord(m[1]), home); err == nil {
				add(ref, integrations.RelChild, "task-list")
			}
		}
	}
	return found, problems
}

// trimWord drops punctuation around a reference written in prose.
func trimWord(w string) string {
	return strings.TrimRight(strings.TrimLeft(w, "(["), ".,;:)]")
}
