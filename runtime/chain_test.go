package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

func entry(name string, fn HookFunc) ChainEntry { return ChainEntry{Hook: name, fn: fn} }

func passHook(data map[string]any) HookFunc {
	return func(*HookContext) (Result, error) { return OK("", data), nil }
}

func TestRunChain(t *testing.T) {
	ran := map[string]bool{}
	mark := func(name string, r Result) HookFunc {
		return func(*HookContext) (Result, error) { ran[name] = true; return r, nil }
	}
	tests := []struct {
		name        string
		chain       []ChainEntry
		status      Status
		outcome     string
		retriable   bool
		blockingHk  string
		msgContains string
		notRun      string
	}{
		{name: "empty chain passes", status: Pass, outcome: "pass", retriable: true},
		{name: "first block short-circuits", chain: []ChainEntry{
			entry("a", mark("a", Blocked("a", Errorf("", "bad")))), entry("b", mark("b", OK("b", nil)))},
			status: Block, outcome: "block", retriable: true, blockingHk: "a", notRun: "b"},
		{name: "wait short-circuits", chain: []ChainEntry{
			entry("w", mark("w", Waiting("w", "later"))), entry("c", mark("c", OK("c", nil)))},
			status: Wait, outcome: "wait", retriable: true, blockingHk: "w", notRun: "c"},
		{name: "skip is not a verdict", chain: []ChainEntry{
			entry("s", passHookSkip()), entry("b2", mark("b2", Blocked("b2", Errorf("", "late"))))},
			status: Block, outcome: "block", retriable: true, blockingHk: "b2"},
		{name: "chain ending in a skip routes on pass", chain: []ChainEntry{
			entry("p", passHook(nil)), entry("s", passHookSkip())}, status: Pass, outcome: "pass", retriable: true},
		{name: "explicit outcome survives later passes", chain: []ChainEntry{
			entry("g", passHook(map[string]any{"outcome": "approved"})), entry("p", passHook(nil))},
			status: Pass, outcome: "approved", retriable: true},
		{name: "panic blocks, not retriable", chain: []ChainEntry{
			entry("boom", func(*HookContext) (Result, error) { panic("kaboom") })},
			status: Block, outcome: "block", retriable: false, blockingHk: "boom", msgContains: "the boom hook failed to run: panic: kaboom"},
		{name: "error blocks, not retriable", chain: []ChainEntry{
			entry("err", func(*HookContext) (Result, error) { return Result{}, errors.New("disk gone") })},
			status: Block, outcome: "block", retriable: false, blockingHk: "err", msgContains: "disk gone"},
		{name: "unknown status blocks", chain: []ChainEntry{
			entry("odd", func(*HookContext) (Result, error) { return Result{Status: "maybe"}, nil })},
			status: Block, outcome: "block", retriable: false, blockingHk: "odd", msgContains: `unknown status "maybe"`},
		{name: "timeout blocks, not retriable", chain: []ChainEntry{
			entry("slow", func(hc *HookContext) (Result, error) {
				<-hc.Context.Done()
				time.Sleep(10 * time.Millisecond)
				return OK("slow", nil), nil
			})},
			status: Block, outcome: "block", retriable: false, blockingHk: "slow", msgContains: "timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = map[string]bool{}
			oc := RunChain(tt.chain, &HookContext{}, 50*time.Millisecond)
			assert.Equal(t, tt.status, oc.Status)
			assert.Equal(t, tt.outcome, oc.Outcome())
			if tt.blockingHk != "" {
				require.NotNil(t, oc.Blocking)
				assert.Equal(t, tt.blockingHk, oc.Blocking.Hook)
				assert.Equal(t, tt.retriable, oc.Blocking.Retriable)
				assert.Contains(t, oc.Render(), "`"+tt.blockingHk+"` did not pass:")
			} else {
				assert.Nil(t, oc.Blocking)
				assert.Empty(t, oc.Render())
			}
			if tt.msgContains != "" {
				assert.Contains(t, oc.Blocking.Render(), tt.msgContains)
			}
			if tt.notRun != "" {
				assert.False(t, ran[tt.notRun], "%s must not run after a short-circuit", tt.notRun)
			}
		})
	}
}

func passHookSkip() HookFunc {
	return func(*HookContext) (Result, error) { return Skipped("", "nothing to do"), nil }
}

func TestRepositoryHookCannotRoute(t *testing.T) {
	e := ChainEntry{Hook: "x-mine", fn: passHook(map[string]any{"outcome": "approved", DataEscalate: "stop it", DataFixRound: &FixRound{}}), repoHk: true}
	oc := RunChain([]ChainEntry{e}, &HookContext{}, time.Second)
	assert.Equal(t, "pass", oc.Outcome())
	assert.Empty(t, escalation(oc.Results), "nor escalate")
	assert.NotContains(t, oc.Results[0].Data, DataFixRound, "nor send work back")
}

func TestMessageAndResultRendering(t *testing.T) {
	assert.Equal(t, "bad (a/b.md)", Message{Text: "bad", Path: "a/b.md"}.String())
	assert.Equal(t, "bad", Message{Text: "bad"}.String())
	r := Blocked("h", Errorf("x.md", "one"), Errorf("", "two"))
	assert.Equal(t, "- one (x.md)\n- two", r.Render())
	assert.Equal(t, "approved", OK("h", map[string]any{"outcome": "approved"}).Outcome())
	assert.Equal(t, "pass", OK("h", nil).Outcome())
}

func TestRegistry(t *testing.T) {
	fn := passHook(nil)
	a := HookSpec{Name: "a", Func: fn}
	tests := []struct {
		name, hook, want string
		fn               HookFunc
	}{
		{"duplicate", "a", "duplicate hook name", fn},
		{"empty", "  ", "non-empty name", fn},
		{"reserved prefix", "x-mine", "reserved", fn},
		{"nil function", "b", "no function", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRegistry(a, HookSpec{Name: tt.hook, Func: tt.fn})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	r, err := NewRegistry(a)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, r.Names())
	got, ok := r.Lookup("a")
	assert.True(t, ok)
	assert.Equal(t, "a", got.Name)
}

func TestEntryTimeoutHonoursTheHooksOwnTimeout(t *testing.T) {
	e := &ChainEntry{Hook: "verify-tests", With: map[string]any{"timeoutSeconds": 900}}
	assert.Equal(t, 930*time.Second, entryTimeout(e, time.Minute, RepoCommands{}))
	assert.Equal(t, time.Minute, entryTimeout(&ChainEntry{Hook: "x"}, time.Minute, RepoCommands{}))
}

// A hook that runs the repository's commands is bounded by their budget:
// one timeout per command plus a grace, never the chain's shorter default.
func TestEntryTimeoutCoversTheRepositoryCommands(t *testing.T) {
	cmds := RepoCommands{List: []RepoCommand{{Key: "lint", Argv: []string{"x"}}, {Key: "test", Argv: []string{"y"}}}, TimeoutSeconds: 600}
	runs := &ChainEntry{Hook: "verify-tests", runsCommands: true}
	assert.Equal(t, 1230*time.Second, entryTimeout(runs, time.Minute, cmds))
	assert.Equal(t, time.Minute, entryTimeout(&ChainEntry{Hook: "x"}, time.Minute, cmds), "other hooks keep the chain's bound")
	assert.Equal(t, time.Minute, entryTimeout(runs, time.Minute, RepoCommands{}), "no command, no budget")
}

func TestReadOnlyHooksRunInlineWithTheSameGuarantees(t *testing.T) {
	tests := []struct {
		name string
		fn   HookFunc
		want string
	}{
		{"panic", func(*HookContext) (Result, error) { panic("boom") }, "panic: boom"},
		{"error", func(*HookContext) (Result, error) { return Result{}, errors.New("nope") }, "nope"},
		{"overran its budget", func(*HookContext) (Result, error) { time.Sleep(30 * time.Millisecond); return OK("", nil), nil }, "timed out"},
		{"unknown status", func(*HookContext) (Result, error) { return Result{Status: "odd"}, nil }, "unknown status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, readOnly := range []bool{true, false} {
				ctx, failed := WatchHookFailures(context.Background())
				oc := RunChain([]ChainEntry{entry("h", tt.fn)}, &HookContext{ReadOnly: readOnly, Context: ctx}, 10*time.Millisecond)
				require.NotNil(t, oc.Blocking)
				assert.Equal(t, Block, oc.Status)
				assert.False(t, oc.Blocking.Retriable)
				assert.Contains(t, oc.Blocking.Render(), tt.want)
				assert.True(t, failed(), "the watch sees the failure (read-only %v)", readOnly)
			}
		})
	}
	t.Run("a hook that blocks on its own is no failure", func(t *testing.T) {
		ctx, failed := WatchHookFailures(context.Background())
		blocks := func(*HookContext) (Result, error) {
			return Result{Status: Block, Messages: []Message{{Text: "missing"}}}, nil
		}
		oc := RunChain([]ChainEntry{entry("h", blocks)}, &HookContext{ReadOnly: true, Context: ctx}, time.Second)
		assert.Equal(t, Block, oc.Status)
		assert.False(t, failed())
	})
}

// labelTracker answers GetIssue and AddLabels; nothing else is ever reached.
type labelTracker struct {
	integrations.Provider
	got []string
}

func (l *labelTracker) Name() string { return "labels" }
func (l *labelTracker) Operations() []integrations.Op {
	return []integrations.Op{integrations.OpGetIssue, integrations.OpAddLabels}
}
func (l *labelTracker) GetIssue(context.Context, integrations.Ref) (integrations.Issue, error) {
	l.got = append(l.got, "get-issue")
	return integrations.Issue{}, nil
}
func (l *labelTracker) AddLabels(context.Context, integrations.Ref, []string) error {
	l.got = append(l.got, "add-labels")
	return nil
}

// TestAHookReachesOnlyTheOperationsItDeclares: the tracker a hook receives
// refuses an undeclared operation before the provider sees it, and the
// hook's verdict becomes a non-retriable block naming the operation.
func TestAHookReachesOnlyTheOperationsItDeclares(t *testing.T) {
	labels := func(hc *HookContext) (Result, error) {
		if _, err := hc.Tracker.GetIssue(hc.Context, integrations.Ref{}); err != nil {
			return OK("", map[string]any{"error": err.Error()}), nil
		}
		if err := hc.Tracker.AddLabels(hc.Context, integrations.Ref{}, []string{"x"}); err != nil {
			return OK("", map[string]any{"error": err.Error()}), nil
		}
		return OK("", nil), nil
	}
	tests := []struct {
		name     string
		declared []integrations.Op
		status   Status
		reached  []string
		message  string
	}{
		{"everything declared", []integrations.Op{integrations.OpGetIssue, integrations.OpAddLabels}, Pass, []string{"get-issue", "add-labels"}, ""},
		{"one left out", []integrations.Op{integrations.OpAddLabels}, Block, nil,
			"the labels hook failed to run: it called get-issue, which its entry in the hook list does not declare"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tracker := &labelTracker{}
			e := ChainEntry{Hook: "labels", fn: labels, ops: tt.declared}
			oc := RunChain([]ChainEntry{e}, &HookContext{Tracker: tracker}, time.Second)
			assert.Equal(t, tt.status, oc.Status)
			assert.Equal(t, tt.reached, tracker.got)
			if tt.message != "" {
				require.NotNil(t, oc.Blocking)
				assert.False(t, oc.Blocking.Retriable)
				assert.Equal(t, tt.message, oc.Blocking.Messages[0].Text)
			}
		})
	}
}

// Whether a hook runs inline (read-only) or on its own goroutine, each
// gets a context and a tracker of its own, restricted to what its entry
// declares, and the caller's HookContext is as it was after the chain.
func TestEachHookGetsItsOwnContextAndTracker(t *testing.T) {
	for _, readOnly := range []bool{true, false} {
		t.Run(fmt.Sprintf("read-only %v", readOnly), func(t *testing.T) {
			tracker := &labelTracker{}
			ctx := context.WithValue(context.Background(), ctxKey{}, "caller")
			hc := &HookContext{ReadOnly: readOnly, Context: ctx, Tracker: tracker}
			var seen []context.Context
			op := func(call func(hc *HookContext) error) HookFunc {
				return func(hc *HookContext) (Result, error) {
					seen = append(seen, hc.Context)
					assert.Equal(t, "caller", hc.Context.Value(ctxKey{}), "the hook's context is the caller's child")
					assert.NotSame(t, tracker, hc.Tracker, "the hook gets a restricted tracker")
					return OK("", nil), call(hc)
				}
			}
			oc := RunChain([]ChainEntry{
				{Hook: "get", ops: []integrations.Op{integrations.OpGetIssue}, fn: op(func(hc *HookContext) error {
					_, err := hc.Tracker.GetIssue(hc.Context, integrations.Ref{})
					return err
				})},
				{Hook: "add", ops: []integrations.Op{integrations.OpAddLabels}, fn: op(func(hc *HookContext) error {
					return hc.Tracker.AddLabels(hc.Context, integrations.Ref{}, []string{"x"})
				})},
			}, hc, time.Second)
			assert.Equal(t, Pass, oc.Status, "each hook reached only what it declares: %s", oc.Render())
			assert.Equal(t, []string{"get-issue", "add-labels"}, tracker.got)
			require.Len(t, seen, 2)
			assert.NotEqual(t, seen[0], seen[1], "each call has its own context")
			for _, c := range seen {
				assert.Error(t, c.Err(), "a hook's context ends with its call")
			}
			assert.Same(t, tracker, hc.Tracker, "the caller's tracker is back")
			assert.Equal(t, ctx, hc.Context, "the caller's context is back")
			assert.NoError(t, hc.Context.Err())
		})
	}
}

type ctxKey struct{}

func TestAHookWithoutATrackerStillSeesNone(t *testing.T) {
	var saw integrations.Provider = &labelTracker{}
	e := ChainEntry{Hook: "h", fn: func(hc *HookContext) (Result, error) { saw = hc.Tracker; return OK("", nil), nil }}
	RunChain([]ChainEntry{e}, &HookContext{}, time.Second)
	assert.True(t, saw == nil, "no tracker stays nil, never a wrapper around nil: %#v", saw)
}

func TestTruthy(t *testing.T) {
	for v, want := range map[any]bool{true: true, false: false, "": false, "false": true, 0: false, 1: true, 0.0: false} {
		assert.Equal(t, want, Truthy(v), "%#v", v)
	}
	assert.False(t, Truthy(nil))
	assert.False(t, Truthy([]any{}))
	assert.True(t, Truthy([]any{"a"}))
}
