package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// DefaultHookTimeout bounds one hook call.
const DefaultHookTimeout = 60 * time.Second

// ChainEntry is one hook reference in a chain with its parameters.
type ChainEntry struct {
	Hook    string         `json:"hook"`
	With    map[string]any `json:"with,omitempty"`
	fn      HookFunc
	ops     []integrations.Op
	hostOps []integrations.Op
	repoHk  bool
	// runsCommands: bounded by the repository commands' budget.
	runsCommands bool
}

// ChainOutcome is the result of running a chain.
type ChainOutcome struct {
	Status   Status
	Results  []Result
	Blocking *Result
}

// Satisfied reports a passing chain.
func (o ChainOutcome) Satisfied() bool { return o.Status == Pass }

// Outcome is the routing value: the blocking result's outcome, else the last
// explicit data.outcome, else "pass".
func (o ChainOutcome) Outcome() string {
	if o.Blocking != nil {
		return o.Blocking.Outcome()
	}
	for i := len(o.Results) - 1; i >= 0; i-- {
		if s, ok := o.Results[i].Data["outcome"].(string); ok && s != "" {
			return s
		}
	}
	return string(Pass)
}

// Messages returns the blocking result's messages.
func (o ChainOutcome) Messages() []Message {
	if o.Blocking == nil {
		return nil
	}
	return o.Blocking.Messages
}

// Render is "`hook` did not pass:\n- msg…" for a non-pass chain, else "".
func (o ChainOutcome) Render() string {
	if o.Blocking == nil {
		return ""
	}
	return fmt.Sprintf("`%s` did not pass:\n%s", o.Blocking.Hook, o.Blocking.Render())
}

// RunChain runs entries in order with hc, stopping at the first block or
// wait. A hook that panics, returns an error, returns an unknown status or
// exceeds timeout yields a non-retriable block, never a pass.
func RunChain(entries []ChainEntry, hc *HookContext, timeout time.Duration) ChainOutcome {
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	results := make([]Result, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		hc.Params = e.With
		if hc.Params == nil {
			hc.Params = map[string]any{}
		}
		hc.Results = results
		res := callHook(e, hc, entryTimeout(e, timeout, hc.Commands))
		if e.repoHk {
			for _, k := range []string{"outcome", DataFixRound, DataEscalate} {
				if _, ok := res.Data[k]; ok {
					delete(res.Data, k)
					slog.Warn("repository hooks do not route; what it asked for was ignored", "hook", e.Hook, "key", k)
				}
			}
		}
		results = append(results, res)
		if res.Status != Pass && res.Status != Skip {
			return ChainOutcome{Status: res.Status, Results: results, Blocking: &results[len(results)-1]}
		}
	}
	return ChainOutcome{Status: Pass, Results: results}
}

// entryTimeout lets a hook that declares its own timeoutSeconds (verify-tests)
// run that long, plus a grace period for its own clean-up, and a hook that
// runs the repository's commands as long as they may take.
func entryTimeout(e *ChainEntry, def time.Duration, cmds RepoCommands) time.Duration {
	if b := cmds.Budget(); e.runsCommands && b > def {
		def = b
	}
	var secs float64
	switch v := e.With["timeoutSeconds"].(type) {
	case int:
		secs = float64(v)
	case float64:
		secs = v
	}
	if own := time.Duration(secs*float64(time.Second)) + 30*time.Second; secs > 0 && own > def {
		return own
	}
	return def
}

func callHook(e *ChainEntry, hc *HookContext, timeout time.Duration) Result {
	caller := hc.Context // hc's own is the hook's during the call
	failed := func(err string) Result {
		noteHookFailure(caller)
		return Result{Status: Block, Hook: e.Hook, Retriable: false,
			Messages: []Message{{Text: fmt.Sprintf("the %s hook failed to run: %s", e.Hook, err), Severity: SevError}}}
	}
	if e.fn == nil {
		return failed("no function is bound to this hook")
	}
	parent := caller
	if parent == nil {
		parent = context.Background()
	}
	// A read-only hook runs inline and seldom waits on Done: its timer,
	// armed per call, was a measurable part of a check. The goroutine path
	// waits on Done itself, so it arms one anyway.
	var ctx context.Context
	if hc.ReadOnly {
		lazy := newLazyTimeout(parent, timeout)
		defer lazy.cancel()
		ctx = lazy
	} else {
		timed, cancel := context.WithTimeout(parent, timeout)
		defer cancel()
		ctx = timed
	}
	// A hook on its own goroutine may outlive the call (an overrun), so it
	// gets a copy of hc. A read-only hook runs inline and is done when it
	// returns: it borrows hc, whose fields set for the call are put back
	// after (a copy per hook was a tenth of what a check allocates).
	local := hc
	if hc.ReadOnly {
		tracker, host := hc.Tracker, hc.CodeHost
		defer func() { hc.Context, hc.Tracker, hc.CodeHost = caller, tracker, host }()
	} else {
		own := *hc
		local = &own
	}
	local.Context = ctx
	var tracker, host *integrations.Restricted
	if hc.Tracker != nil {
		tracker = integrations.Restrict(hc.Tracker, "hook "+e.Hook, e.ops)
		local.Tracker = tracker
	}
	if hc.CodeHost != nil {
		host = integrations.Restrict(hc.CodeHost, "hook "+e.Hook+" (code host)", e.hostOps)
		local.CodeHost = host
	}
	res := callGuarded(e, local, timeout, failed)
	for _, r := range []*integrations.Restricted{tracker, host} {
		if r != nil {
			if undeclared := r.Undeclared(); len(undeclared) > 0 {
				return failed(fmt.Sprintf("it called %s, which its entry in the hook list does not declare", joinOps(undeclared)))
			}
		}
	}
	return res
}

// joinOps renders operations for a message: "get-issue, add-labels".
func joinOps(ops []integrations.Op) string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = string(op)
	}
	return strings.Join(out, ", ")
}

// callGuarded runs the hook inline (read-only) or on its own goroutine,
// turning a panic, an error, an unknown status or an overrun into failed.
func callGuarded(e *ChainEntry, local *HookContext, timeout time.Duration, failed func(string) Result) Result {
	if local.ReadOnly {
		return callInline(e, local, timeout, failed)
	}
	ctx := local.Context
	type outcome struct {
		res Result
		err error
		pan any
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{pan: p}
			}
		}()
		r, err := e.fn(local)
		done <- outcome{res: r, err: err}
	}()
	select {
	case o := <-done:
		switch {
		case ctx.Err() != nil:
			// It finished, but past its budget (both were ready at once):
			// an overrun, as on the inline path.
			return failed(fmt.Sprintf("timed out after %s", timeout))
		case o.pan != nil:
			slog.Error("hook panicked", "hook", e.Hook, "panic", fmt.Sprint(o.pan))
			return failed(fmt.Sprintf("panic: %v", o.pan))
		case o.err != nil:
			return failed(o.err.Error())
		case !o.res.Status.Valid():
			return failed(fmt.Sprintf("%s returned unknown status %q; expected one of [block pass skip wait]", e.Hook, o.res.Status))
		}
		o.res.Hook = e.Hook
		if o.res.Data == nil {
			o.res.Data = map[string]any{}
		}
		return o.res
	case <-ctx.Done():
		return failed(fmt.Sprintf("timed out after %s", timeout))
	}
}

// callInline runs a read-only hook on the caller's goroutine: under check a
// hook reads regular files only (the spec folder refuses anything else), so
// it cannot block on input, and the goroutine hand-off per hook was a fifth
// of a check's cost. A hook that overran its budget still yields a
// non-retriable block.
func callInline(e *ChainEntry, hc *HookContext, timeout time.Duration, failed func(string) Result) (res Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			slog.Error("hook panicked", "hook", e.Hook, "panic", fmt.Sprint(p))
			res = failed(fmt.Sprintf("panic: %v", p))
		}
	}()
	r, err := e.fn(hc)
	switch {
	case time.Since(start) > timeout:
		return failed(fmt.Sprintf("timed out after %s", timeout))
	case err != nil:
		return failed(err.Error())
	case !r.Status.Valid():
		return failed(fmt.Sprintf("%s returned unknown status %q; expected one of [block pass skip wait]", e.Hook, r.Status))
	}
	r.Hook = e.Hook
	if r.Data == nil {
		r.Data = map[string]any{}
	}
	return r
}

// degradations returns "warning: hook did not complete: error" for every
// result carrying data.error.
func degradations(results []Result) []string {
	var out []string
	for _, r := range results {
		if s, ok := r.Data["error"].(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, fmt.Sprintf("warning: %s did not complete: %s", r.Hook, s))
		}
	}
	return out
}

// HookName is the entry's hook name.
func (e ChainEntry) HookName() string { return e.Hook }

// Ops are the integration operations the entry's hook declares.
func (e ChainEntry) Ops() []integrations.Op { return e.ops }

// HostOps are the code-host operations the entry's hook declares.
func (e ChainEntry) HostOps() []integrations.Op { return e.hostOps }
