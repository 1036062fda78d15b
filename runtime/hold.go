package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// Control commands that hold a work item.
const (
	ControlPause = "pause"
	ControlStop  = "stop"
)

// Control is a pause or stop an authorized person gave on the ticket. While
// an item carries one it is held: see Held.
type Control struct {
	// Command is pause or stop.
	Command string `json:"command"`
	// By is who gave it; At is when (the comment's time) and Comment the
	// comment's URL.
	By      string `json:"by"`
	At      string `json:"at"`
	Comment string `json:"comment,omitempty"`
}

// ErrHeld marks an act refused because its work item is paused or stopped.
var ErrHeld = errors.New("the work item is paused or stopped")

// HoldError refuses an act on a held work item, naming who held it and how
// to lift the hold.
type HoldError struct {
	WorkItem string
	Control  Control
	// Lift is the keyword an authorized user comments to lift the hold ("":
	// the operator disabled it).
	Lift string
	// LiftCommand is the command Lift stands for (resume or start).
	LiftCommand string
}

// State is "paused" or "stopped".
func (e *HoldError) State() string {
	if e.Control.Command == ControlStop {
		return "stopped"
	}
	return "paused"
}

func (e *HoldError) Error() string {
	state := e.State()
	var b strings.Builder
	fmt.Fprintf(&b, "%s is %s: %s %s it on the ticket", e.WorkItem, state, orSomeone(e.Control.By), state)
	var where []string
	if e.Control.At != "" {
		where = append(where, e.Control.At)
	}
	if e.Control.Comment != "" {
		where = append(where, e.Control.Comment)
	}
	if len(where) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(where, ", "))
	}
	b.WriteString(". While it is held the loop refuses claims, advances, gate evaluations, critic runs and session launches for it; ")
	if e.Lift == "" {
		fmt.Fprintf(&b, "the %s keyword is disabled, so an operator must set routing.control.keywords.%s before an authorized user can lift it", e.LiftCommand, e.LiftCommand)
	} else {
		fmt.Fprintf(&b, "an authorized user lifts it by commenting `%s` on the ticket", e.Lift)
	}
	return b.String()
}

// Unwrap makes every HoldError ErrHeld.
func (e *HoldError) Unwrap() error { return ErrHeld }

func orSomeone(by string) string {
	if strings.TrimSpace(by) == "" {
		return "an authorized user"
	}
	if strings.HasPrefix(by, "@") {
		return by
	}
	return "@" + by
}

// Held is the one control rule every act on a work item asks first: a
// claim, an advance, a gate evaluation, a critic run and a session launch
// are each refused, with this error, while the item is paused or stopped.
// It returns nil for an item that is not held.
func Held(cfg *config.Config, st *State) *HoldError {
	if st == nil || st.Control == nil {
		return nil
	}
	if cfg == nil {
		cfg = config.Default()
	}
	lift := ControlResume
	if st.Control.Command == ControlStop {
		lift = ControlStart
	}
	return &HoldError{WorkItem: st.WorkItem, Control: *st.Control, Lift: cfg.Keyword(lift), LiftCommand: lift}
}

// The arming commands that lift a hold.
const (
	ControlResume = "resume"
	ControlStart  = "start"
)

// SetControl records c as id's hold, or lifts the hold when c is nil; it
// writes nothing when the state already says so, and reports whether it
// changed. lifter names who lifted a hold (recorded in the event).
func (r *Runtime) SetControl(ctx context.Context, id string, c *Control, lifter string) (bool, error) {
	if err := ValidateID(id); err != nil {
		return false, err
	}
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		switch {
		case c == nil && st.Control == nil, c != nil && st.Control != nil && *st.Control == *c:
			return nil, errNoSave
		case c == nil:
			was := st.Control
			st.Control = nil
			return []EventRecord{{Name: "control.lifted", Node: st.CurrentNode, Data: map[string]any{"was": was.Command, "by": lifter}}}, nil
		}
		held := *c
		st.Control = &held
		return []EventRecord{{Name: "control.held", Node: st.CurrentNode, Data: map[string]any{"command": c.Command, "by": c.By, "comment": c.Comment}}}, nil
	})
	if errors.Is(err, errNoSave) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("record the control of %s: %w", id, err)
	}
	return true, nil
}
