package specdir

import (
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

// Slot is one produces/validates entry: the names it accepts, any one of
// which satisfies it ("requirements.md|bugfix.md").
type Slot struct {
	Entry string
	Names []string
}

// Label joins the slot's names for messages: "requirements.md, bugfix.md".
func (s Slot) Label() string { return strings.Join(s.Names, ", ") }

// ParseSlots turns raw entries into slots; entries naming nothing are dropped.
func ParseSlots(entries []string) []Slot {
	out := make([]Slot, 0, len(entries))
	for _, e := range entries {
		if names := runtime.Alternatives(e); len(names) > 0 {
			out = append(out, Slot{Entry: e, Names: names})
		}
	}
	return out
}

// NodeSlots returns the slots the current node produces.
func NodeSlots(hc *runtime.HookContext) []Slot {
	if hc.Node == nil {
		return nil
	}
	return ParseSlots(hc.Node.Produces)
}

// ParamSlots returns the slots a hook parameter names (a string entry or a
// list of entries).
func ParamSlots(hc *runtime.HookContext, key string) []Slot {
	return ParseSlots(hc.ListParam(key))
}
