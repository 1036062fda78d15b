package service

import (
	"fmt"
	"slices"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/control"
)

// What a held, blocked or cyclic item's status comment says: what holds
// it, and what releases it.

// releasedWhenComplete is how a blocker stops holding.
const releasedWhenComplete = "it is released on the first cycle in which every blocker is complete (walked to complete by the loop, or its ticket closed as done)"

// blockersWait says what an item held at phase selection by its recorded
// dependencies waits for, and, when an authorized `the-loop execute` was
// already given (given), that it is kept rather than asked for again. It
// is "" when the record holds nothing (or the selection was recorded).
func blockersWait(cfg *config.Config, st *runtime.State, given *integrations.Comment) string {
	d := st.Dependencies
	if !d.Holds() {
		return ""
	}
	if dec, ok := st.Decisions[phaseSelection]; ok && dec.Kind == runtime.KindSelection {
		return ""
	}
	msg := d.Message()
	var what string
	switch d.Verdict {
	case runtime.DepCycle:
		what = "the dependency cycle to be broken: " + msg + " — it is released on the first cycle after a person removes one of the dependencies"
	case runtime.DepUnread:
		what = "its dependencies to be read: " + msg + " — " + releasedWhenComplete + ", once they can be read"
	default:
		what = "its blockers: " + msg + " — " + releasedWhenComplete
	}
	if given != nil {
		return what + fmt.Sprintf("; @%s's `%s` is kept and takes effect then", given.Author, cfg.Keyword(string(control.Execute)))
	}
	return what + fmt.Sprintf("; then an authorized `%s` reply signs the checklist", cfg.Keyword(string(control.Execute)))
}

// executeGiven is the newest authorized comment written since the visit
// began that gives the execute command as the phase-selection gate reads
// it (nil when none does, or when a newer authorized comment naming the
// keyword withdrew it).
func executeGiven(cfg *config.Config, comments []integrations.Comment, since time.Time) *integrations.Comment {
	parser := control.New(cfg)
	authorized := authz.AuthorizedComments(cfg, comments)
	for i := len(authorized) - 1; i >= 0; i-- {
		c := authorized[i]
		if !since.IsZero() && c.CreatedAt.Before(since) {
			break
		}
		if isHandoffComment(c.Body) {
			continue
		}
		res := parser.Parse(c.Body)
		if !slices.Contains(res.Found, control.Execute) {
			continue
		}
		if res.Command != control.Execute || authz.Edited(c) {
			return nil
		}
		return &c
	}
	return nil
}

// unarmedWait says what an item an authorized person asked to start waits
// for when the loop refuses to arm it (a dependency cycle, a graph that
// cannot be read): what holds it and what releases it.
func unarmedWait(cfg *config.Config, rec *runtime.Dependencies, why string, last control.Command, by integrations.Comment) string {
	release := "it is armed on the first cycle in which that no longer holds"
	switch {
	case rec != nil && rec.Verdict == runtime.DepCycle:
		release = "it is armed on the first cycle after a person removes one of the dependencies of the cycle"
	case rec != nil && rec.Verdict == runtime.DepUnread:
		release = "it is armed once its dependencies can be read and none holds it"
	}
	out := "the loop to arm it: " + why + " — " + release
	if by.Author != "" && last != control.None {
		out += fmt.Sprintf("; @%s's `%s` is kept and takes effect then", by.Author, cfg.Keyword(string(last)))
	}
	return out
}
