// Package runtime is the process-graph engine: the hook contract, the hook
// registry, chain execution, the compiled graph model, work-item state and
// the runtime that walks a work item through a graph.
package runtime

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
)

// Status is a hook verdict.
type Status string

// The four hook statuses.
const (
	Pass  Status = "pass"
	Block Status = "block"
	Wait  Status = "wait"
	Skip  Status = "skip"
)

// Valid reports whether s is one of the four hook statuses.
func (s Status) Valid() bool {
	switch s {
	case Pass, Block, Wait, Skip:
		return true
	}
	return false
}

// Severity of a message.
type Severity string

// Message severities.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Message is one finding. Text is composed from the loop's own vocabulary,
// never from payload text. Path is repo-relative when under the repository.
type Message struct {
	Text     string   `json:"text"`
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
}

// String renders "text (path)" or just text.
func (m Message) String() string {
	if m.Path != "" {
		return m.Text + " (" + m.Path + ")"
	}
	return m.Text
}

// Result is what a hook returns.
type Result struct {
	Status    Status         `json:"status"`
	Hook      string         `json:"hook"`
	Messages  []Message      `json:"messages"`
	Data      map[string]any `json:"data"`
	Retriable bool           `json:"retriable"`
}

// Outcome is data["outcome"] when set, else the status: what edges route on.
func (r Result) Outcome() string {
	if o, ok := r.Data["outcome"].(string); ok && o != "" {
		return o
	}
	return string(r.Status)
}

// Render joins the messages as "- msg" lines.
func (r Result) Render() string {
	lines := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		lines[i] = "- " + m.String()
	}
	return strings.Join(lines, "\n")
}

// OK returns a pass with optional data key/value pairs.
func OK(hook string, data map[string]any) Result {
	return Result{Status: Pass, Hook: hook, Data: data, Retriable: true}
}

// Blocked returns a retriable block carrying messages.
func Blocked(hook string, msgs ...Message) Result {
	return Result{Status: Block, Hook: hook, Messages: msgs, Retriable: true}
}

// Final returns a non-retriable block: the graph itself must change before
// the node can pass.
func Final(hook string, msgs ...Message) Result {
	r := Blocked(hook, msgs...)
	r.Retriable = false
	return r
}

// Waiting returns a wait with one info message when reason is non-empty.
func Waiting(hook, reason string) Result {
	r := Result{Status: Wait, Hook: hook, Retriable: true}
	if reason != "" {
		r.Messages = []Message{{Text: reason, Severity: SevInfo}}
	}
	return r
}

// Skipped returns a skip with one info message when reason is non-empty.
func Skipped(hook, reason string) Result {
	r := Result{Status: Skip, Hook: hook, Retriable: true}
	if reason != "" {
		r.Messages = []Message{{Text: reason, Severity: SevInfo}}
	}
	return r
}

// Errorf builds an error-severity message with a path.
func Errorf(path, format string, args ...any) Message {
	return Message{Text: fmt.Sprintf(format, args...), Path: path, Severity: SevError}
}

// WorkItem identifies the item a hook runs for.
type WorkItem struct {
	// Ref is the ticket reference (github:owner/repo#n, jira:KEY-1) or the id.
	Ref string
	// ID is the spec-folder name, e.g. issue-109.
	ID string
	// SpecDir is the absolute spec folder <repo>/<specDir>/<id>.
	SpecDir string
	// LoopDir is an inner loop's own folder under SpecDir, slash-separated
	// (pr-loops/pr-7, pr-loops/octo__infra/pr-7); "" for the item's own
	// loop. The graph's records resolve there, and only there.
	LoopDir string
}

// Event is the inbound input of an advance: the ticket comments read by the
// caller (the poller or a CLI verb with an integration).
type Event struct {
	Comments []integrations.Comment
}

// HookContext is what a hook can see. It is read-only: hooks never mutate
// State; they report decisions through Result.Data.
type HookContext struct {
	Context  context.Context
	WorkItem WorkItem
	// Repo is the absolute repository root.
	Repo string
	// RelSpecDir is the spec folder relative to Repo (slash-separated).
	RelSpecDir string
	Node       *Node
	Graph      *Graph
	// Boundary is "entry" or "exit".
	Boundary string
	// Params is this chain entry's with: block.
	Params map[string]any
	// Results are the earlier results of this chain.
	Results []Result
	// State is a read-only view of the work item's state.
	State *State
	// Skipped is the validated declared-skip set (node id → provenance).
	Skipped map[string]*Decision
	// SkippedArtifacts lists the artifact names a declared-skipped node
	// produces whose own product is planned absent.
	SkippedArtifacts map[string]bool
	// Event is the inbound event (nil under check).
	Event *Event
	// Config is the operator configuration (never secret values).
	Config *config.Config
	// Commands are the repository's own lint, type-check and test commands
	// (empty when it declares none).
	Commands RepoCommands
	// Tracker is the ticket integration (nil when none is configured or in
	// read-only evaluation).
	Tracker integrations.Provider
	// CodeHost is the provider of the pull requests (GitHub), nil when none
	// is configured or in read-only evaluation. For a GitHub item it is the
	// tracker's provider; a Jira item's pull requests are read through it.
	CodeHost integrations.Provider
	// Notifier delivers notifications (nil when none).
	Notifier integrations.Notifier
	// Assignments hands an agent node's assignment to the item's session
	// (nil when nothing supervises sessions, and in read-only evaluation).
	Assignments AssignmentSink
	// TicketRef is the parsed ticket reference (zero when unknown).
	TicketRef integrations.Ref
	// ReadOnly is true under check: hooks must not write files, post, or
	// run subprocesses.
	ReadOnly bool
	// Signer verifies and signs decisions.
	Signer *Signer
	// Strict is true under check --recompute: only verified decisions are
	// honoured, key or no key.
	Strict bool
	// Cache shares reads across the nodes of one read-only evaluation (nil
	// when the evaluation may write).
	Cache *EvalCache
	// Origin is OWNER/REPO of the repository the work item is tracked in
	// ("" when unknown): the inner loops of its own pull requests live
	// directly under pr-loops/.
	Origin string
	// InnerFault says why a verified decision of an inner loop's state
	// (a pull request's) does not belong to that loop's ticket ("" when it
	// does; nil: nothing is checked).
	InnerFault func(st *State, d *Decision) string
}

// Param returns a string parameter.
func (c *HookContext) Param(key string) string {
	if v, ok := c.Params[key]; ok && v != nil {
		if s, ok := v.(string); ok {
			return s
		}
		return fmt.Sprint(v)
	}
	return ""
}

// BoolParam returns a boolean parameter (false when absent).
func (c *HookContext) BoolParam(key string) bool {
	v, ok := c.Params[key].(bool)
	return ok && v
}

// IntParam returns a whole-number parameter (def when absent); any other
// value is an error naming the parameter.
func (c *HookContext) IntParam(key string, def int) (int, error) {
	v, ok := c.Params[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case uint64:
		if x <= math.MaxInt32 {
			return int(x), nil
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= math.MaxInt32 {
			return int(x), nil
		}
	}
	return 0, fmt.Errorf("%s must be a whole number, got %v (%T)", key, v, v)
}

// Truthy reads a graph parameter as the YAML's loose boolean: true, a
// non-empty string, list or map, or a non-zero number.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// ListParam returns a list-of-strings parameter.
func (c *HookContext) ListParam(key string) []string {
	switch v := c.Params[key].(type) {
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s) // most items: no formatting
				continue
			}
			out = append(out, fmt.Sprint(e))
		}
		return out
	case []string:
		return v
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	}
	return nil
}

// Recorded returns the current node's recorded decision. The engine hands
// hooks only decisions whose signature verifies.
func (c *HookContext) Recorded() (*Decision, bool) {
	if c.State == nil {
		return nil, false
	}
	d, ok := c.State.Decisions[c.NodeID()]
	return d, ok && d != nil
}

// NodeID returns the current node's id.
func (c *HookContext) NodeID() string {
	if c.Node == nil {
		return ""
	}
	return c.Node.ID
}

// StaleKey is the Result.Data key under which a gate reports that its
// recorded approval no longer covers what it approved (the names of the
// artifacts that changed since): check finds the gate open, and the walk
// sends the item back to it.
const StaleKey = "staleApproval"

// HookFunc is a registered hook.
type HookFunc func(hc *HookContext) (Result, error)
