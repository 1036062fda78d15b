// Package checklist renders the phase-selection checklist a work item's
// ticket carries and reads the boxes back.
//
// The checklist has one row per selectable node of the graph: a skippable
// node is rendered ticked ("- [x] design": it runs unless unticked), an
// opt-in node unticked in its own section ("- [ ] design-critic-review": it
// runs only if ticked). The graph's skip sets get one row each ("spec-chain",
// "review-chain"): unticking a set row removes every member, whatever the
// member's own box says; a ticked set row leaves each member to its own box.
// Beside the phases it asks non-phase questions: whether the outer loop is
// iterated on a pull request (outer-loop-on-pull-request; not offered by the
// contribution loop), how many sessions the pull requests get (exactly one of
// pr-sessions-never|cross-repository|always, pre-ticked from the operator's
// default), and, when the operator declared them, which model and which
// effort (model-<name>, effort-<name>), which harness runs its sessions
// (harness-<name>, when several are configured), and, when dependencies are read
// (dag.enabled), whether the loop arms the item's children as their blockers
// finish (arm-children, unticked by default). A non-phase group answered with
// exactly one tick is a choice; none, several, an unknown name or a
// checklist that could not be read is "no choice", which is recorded as
// such rather than as the default.
//
// Render and Parse are inverses: resolving the parse of a rendered,
// untouched checklist yields the checklist's own defaults.
package checklist

import (
	"regexp"
	"strings"
)

// Marker identifies the checklist comment on the thread.
const Marker = "<!-- the-loop:phase-selection -->"

// Non-phase row tokens and prefixes.
const (
	SurfaceToken   = "outer-loop-on-pull-request"
	SessionsPrefix = "pr-sessions-"
	ModelPrefix    = "model-"
	EffortPrefix   = "effort-"
	// HarnessPrefix asks which configured harness runs the item's
	// sessions (harness-<name>; offered when more than one is configured).
	HarnessPrefix = "harness-"
	// ArmChildrenToken asks the loop to arm the item's children in
	// dependency order as their blockers finish (docs/dag.md).
	ArmChildrenToken = "arm-children"
)

// Surfaces the outer loop can be iterated on.
const (
	SurfacePullRequest = "pull-request"
	SurfaceWorkItem    = "work-item"
)

// SessionModes are the pr-sessions answers, in row order.
var SessionModes = []string{"never", "cross-repository", "always"}

// DefaultSessionMode applies when the operator configured none.
const DefaultSessionMode = "cross-repository"

// tokenRE is the row grammar: a bullet, a box, then a token, optionally in
// backticks.
var tokenRE = regexp.MustCompile("(?m)^[ \\t]*[-*][ \\t]*\\[([ xX])\\][ \\t]*`?([A-Za-z0-9][A-Za-z0-9._-]*)`?")

// validName reports a name usable as a row token suffix.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Mark is the state of a token across the rows naming it.
type Mark int

// Row states.
const (
	// Absent: no row names the token.
	Absent Mark = iota
	Unticked
	Ticked
	// Conflicting: several rows name the token with different boxes; it
	// counts as no statement.
	Conflicting
)

// Parsed is the set of rows read from a comment body.
type Parsed struct {
	marks map[string]Mark
	order []string
}

// Parse reads every checklist row of body. Tokens are case-sensitive, as
// node ids are; a trailing "." or "-" is not part of a token.
func Parse(body string) Parsed {
	p := Parsed{marks: map[string]Mark{}}
	for _, m := range tokenRE.FindAllStringSubmatch(body, -1) {
		tok := strings.TrimRight(m[2], ".-")
		if tok == "" {
			continue
		}
		mark := Unticked
		if m[1] != " " {
			mark = Ticked
		}
		switch prev, seen := p.marks[tok]; {
		case !seen:
			p.marks[tok] = mark
			p.order = append(p.order, tok)
		case prev != mark:
			p.marks[tok] = Conflicting
		}
	}
	return p
}

// Len is the number of distinct tokens read.
func (p Parsed) Len() int { return len(p.order) }

// Tokens returns the tokens in first-seen order.
func (p Parsed) Tokens() []string { return append([]string(nil), p.order...) }

// Mark returns token's state.
func (p Parsed) Mark(token string) Mark { return p.marks[token] }
