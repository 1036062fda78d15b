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
	// ControlTakeover is an operator's stop of the item's session (`the-loop
	// sessions stop`) so a human can work its node by hand: it holds
	// session launches on that node only, until the item moves on.
	ControlTakeover = "takeover"
)

// Control is what holds a work item: a pause or stop an authorized person
// gave on the ticket (recorded in the item's state; see Held), or an
// operator's takeover of its node (kept in the store; see TakenOver).
type Control struct {
	// Command is pause, stop or takeover.
	Command string `json:"command"`
	// By is who gave it; At is when (the comment's time) and Comment the
	// comment's URL.
	By      string `json:"by"`
	At      string `json:"at"`
	Comment string `json:"comment,omitempty"`
	// Node, Session and Reason say, for a takeover, the node held, the
	// session the operator stopped and the reason the operator gave.
	Node    string `json:"node,omitempty"`
	Session string `json:"session,omitempty"`
	Reason  string `json:"reason,omitempty"`
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

// State is "paused", "stopped" or "taken over".
func (e *HoldError) State() string {
	switch e.Control.Command {
	case ControlStop:
		return "stopped"
	case ControlTakeover:
		return "taken over"
	}
	return "paused"
}

// LaunchesOnly reports a hold that refuses session launches and nothing
// else: an operator's takeover, where a human works the node and claims it.
func (e *HoldError) LaunchesOnly() bool { return e.Control.Command == ControlTakeover }

func (e *HoldError) Error() string {
	if e.LaunchesOnly() {
		return e.takeoverText()
	}
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

// takeoverText names the operator's stop and how the hold lifts.
func (e *HoldError) takeoverText() string {
	c := e.Control
	var b strings.Builder
	fmt.Fprintf(&b, "%s is taken over on %s: %s stopped session %s", e.WorkItem, c.Node, orAnOperator(c.By), c.Session)
	var why []string
	if c.Reason != "" {
		why = append(why, c.Reason)
	}
	if c.At != "" {
		why = append(why, c.At)
	}
	if len(why) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(why, ", "))
	}
	fmt.Fprintf(&b, ". While it is held there the loop launches no session for it; a human works %s and claims it (`the-loop graph complete %s`), and the hold lifts once the item moves on", c.Node, e.WorkItem)
	return b.String()
}

func orAnOperator(by string) string {
	if strings.TrimSpace(by) == "" {
		return "an operator"
	}
	return "operator " + by
}

// TakenOver is the hold of an operator's stop of the session that worked
// node of item id: it refuses session launches for the item while it
// stands on that node.
func TakenOver(id string, c Control) *HoldError {
	c.Command = ControlTakeover
	return &HoldError{WorkItem: id, Control: c}
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
	c, lift := *st.Control, ControlResume
	if c.Command != ControlPause {
		// A stop, or a record the loop never writes: held until started.
		c.Command, lift = ControlStop, ControlStart
	}
	return &HoldError{WorkItem: st.WorkItem, Control: c, Lift: cfg.Keyword(lift), LiftCommand: lift}
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
