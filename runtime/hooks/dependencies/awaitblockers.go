package dependencies

import (
	"strings"
	"unicode"

	"github.com/the-loop/the-loop/runtime"
)

// HookAwaitBlockers holds an item at phase selection while its recorded
// blockers have not finished.
const HookAwaitBlockers = "await-blockers"

// maxMessage bounds the status line the hook repeats.
const maxMessage = 300

// AwaitBlockers waits while the dependency record in the item's state holds
// it: an unfinished blocker, a dependency cycle, a ticket that could not be
// read, or a graph that could not be read at all. It runs first in phase
// selection's exit chain, so a held item keeps its posted checklist and an
// authorized answer to it, and leaves phase selection on the first
// evaluation after the poller records that every blocker finished.
//
// Once the node's selection is recorded the phases were chosen and work
// has started: the hook passes, and a blocker added since is only reported.
// Without a record (dependencies never read, or dag.enabled false) there is
// nothing to hold on. The record is the poller's (see Dependencies.Holds for
// why an edited one can only add a hold); the hook never reads a tracker,
// so check and check --recompute derive the same verdict from it.
func AwaitBlockers(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.Config != nil && !hc.Config.DependenciesOn() {
		return runtime.OK(HookAwaitBlockers, map[string]any{"holding": false}), nil
	}
	var d *runtime.Dependencies
	if hc.State != nil {
		d = hc.State.Dependencies
	}
	if _, selected := hc.Recorded(); selected {
		res := runtime.OK(HookAwaitBlockers, map[string]any{"holding": false})
		if d.Holds() {
			res.Messages = []runtime.Message{{Text: clean(d.Message()) + " (reported, not enforced: the phases were already selected)", Severity: runtime.SevInfo}}
		}
		return res, nil
	}
	if d.Holds() {
		return runtime.Waiting(HookAwaitBlockers, clean(d.Message())), nil
	}
	return runtime.OK(HookAwaitBlockers, map[string]any{"holding": false}), nil
}

// clean keeps a recorded line on one line, without control or
// bidirectional characters, and bounded: the record may have been edited.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxMessage {
		s = string(r[:maxMessage-1]) + "…"
	}
	if s == "" {
		s = "held by its recorded dependencies"
	}
	return s
}
