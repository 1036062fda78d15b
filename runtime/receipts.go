package runtime

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// Receipts are the loop's signed records of what it ran itself for a work
// item: a critic round, a run of the repository's commands. They are
// Decisions of their own kinds, signed like every decision, kept in the
// state (so the portable record carries them and check --recompute
// verifies them), and never written by a hook or an agent: an entry that
// does not verify is dropped from the trusted view under --recompute, and
// one recorded for another work item is dropped always.

// Receipt kinds.
const (
	KindCriticRun = "critic-run"
	KindTestRun   = "test-run"
	KindReview    = "review"
)

// ViaLoop marks a receipt of a run the loop made itself.
const ViaLoop = "loop"

// ByLoop is who a receipt is by.
const ByLoop = "the-loop"

// Test-run outcomes.
const (
	TestsPassed = "passed"
	TestsFailed = "failed"
)

// CriticRun is a critic round as its receipt records it.
type CriticRun struct {
	ID     string
	Critic string
	Node   string
	// Unavailable is why the round does not count ("" when it does).
	Unavailable string
}

// NewCriticRunReceipt is the (unsigned) receipt of critic round run at node.
func NewCriticRunReceipt(run CriticRun, promptSHA256, outputSHA256 string) *Decision {
	return &Decision{Node: run.Node, Kind: KindCriticRun, Via: ViaLoop, By: ByLoop, At: Now(), Data: map[string]any{
		"run": run.ID, "critic": run.Critic, "unavailable": run.Unavailable,
		"promptSha256": promptSHA256, "outputSha256": outputSHA256,
	}}
}

// RecordCriticRun signs d (a NewCriticRunReceipt) for id's walk and appends
// it to id's state. The store keeps the run itself and its event; this is
// the copy the review gates and check read.
func (r *Runtime) RecordCriticRun(ctx context.Context, id string, d *Decision) error {
	if d == nil || d.Kind != KindCriticRun {
		return fmt.Errorf("record critic run of %s: not a critic-run receipt", id)
	}
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		d.WorkItem, d.Loop = st.WorkItem, r.Graph.Name
		if err := r.sign(st, d); err != nil {
			return nil, fmt.Errorf("sign the critic run: %w", err)
		}
		st.CriticRuns = append(st.CriticRuns, d)
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("record critic run of %s: %w", id, err)
	}
	return nil
}

// CriticRunsAt returns the critic rounds of a trusted state recorded at
// node, oldest first.
func (s *State) CriticRunsAt(node string) []CriticRun {
	var out []CriticRun
	for _, d := range s.CriticRuns {
		if d.Node != node {
			continue
		}
		out = append(out, CriticRun{ID: dataString(d, "run"), Critic: dataString(d, "critic"), Node: d.Node,
			Unavailable: dataString(d, "unavailable")})
	}
	return out
}

// TestRun is one run of the repository's commands at a node, as its
// receipt records it.
type TestRun struct {
	Node string
	// Outcome is TestsPassed or TestsFailed.
	Outcome string
	// Commit is the working tree's HEAD when the commands ran ("" outside
	// git); Dirty reports uncommitted changes in it.
	Commit string
	Dirty  bool
	// Evidence is the output file, relative to the spec folder, and
	// EvidenceSHA256 the hex digest of what the run wrote there.
	Evidence       string
	EvidenceSHA256 string
	// Commands are what ran, in order.
	Commands []TestCommand
	At       string
}

// TestCommand is one command of a test run.
type TestCommand struct {
	// Key is lint, typeCheck or test.
	Key string
	// Command is the argv as shown in messages.
	Command string
	// Exit is how it ended ("exit 0", "timed out", "not run").
	Exit string
}

// Receipt is the (unsigned) receipt of t; the runtime signs it when it
// records the chain's results.
func (t TestRun) Receipt() *Decision {
	cmds := make([]any, len(t.Commands))
	for i, c := range t.Commands {
		cmds[i] = map[string]any{"key": c.Key, "command": c.Command, "exit": c.Exit}
	}
	return &Decision{Node: t.Node, Kind: KindTestRun, Outcome: t.Outcome, Via: ViaLoop, By: ByLoop, At: Now(), Data: map[string]any{
		"commit": t.Commit, "dirty": t.Dirty, "evidence": t.Evidence, "evidenceSha256": t.EvidenceSHA256, "commands": cmds,
	}}
}

// TestRunAt returns the latest test run of a trusted state at node.
func (s *State) TestRunAt(node string) (TestRun, bool) {
	d, ok := s.TestRuns[node]
	if !ok || d == nil {
		return TestRun{}, false
	}
	t := TestRun{Node: d.Node, Outcome: d.Outcome, Commit: dataString(d, "commit"), Evidence: dataString(d, "evidence"),
		EvidenceSHA256: dataString(d, "evidenceSha256"), At: d.At}
	t.Dirty, _ = d.Data["dirty"].(bool)
	list, _ := d.Data["commands"].([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		str := func(k string) string { v, _ := m[k].(string); return v }
		t.Commands = append(t.Commands, TestCommand{Key: str("key"), Command: str("command"), Exit: str("exit")})
	}
	return t, true
}

// ReceiptKey is the Result.Data key under which a hook hands the runtime
// the (unsigned) receipt of what it ran or decided: verify-tests a test run,
// review-rounds the stop of a review.
const ReceiptKey = "receipt"

// recordReceipts signs and keeps, whatever the chain decided, the receipts
// its results carry: a test run (the latest run at a node replaces the one
// before) and a review's stop. A receipt of any other kind is ignored.
func (r *Runtime) recordReceipts(st *State, node string, results []Result) []EventRecord {
	var evs []EventRecord
	for _, res := range results {
		d, ok := res.Data[ReceiptKey].(*Decision)
		if !ok || d == nil {
			continue
		}
		var into *map[string]*Decision
		var ev EventRecord
		switch d.Kind {
		case KindTestRun:
			into, ev = &st.TestRuns, EventRecord{Name: "tests.ran", Node: node, Data: map[string]any{"outcome": d.Outcome,
				"commit": d.Data["commit"], "evidence": d.Data["evidence"]}}
		case KindReview:
			into, ev = &st.Reviews, EventRecord{Name: "review.stopped", Node: node, Data: map[string]any{"rounds": d.Data["rounds"],
				"stoppedAt": d.Data["stoppedAt"], "cap": d.Data["cap"]}}
		default:
			continue
		}
		d.Node, d.WorkItem, d.Loop = node, st.WorkItem, r.Graph.Name
		if err := r.sign(st, d); err != nil {
			r.log().Warn("could not sign a receipt", "node", node, "kind", d.Kind, "err", err)
		}
		if *into == nil {
			*into = map[string]*Decision{}
		}
		(*into)[node] = d
		evs = append(evs, ev)
	}
	return evs
}

// ReviewStop is a review node's stop as the loop recorded it when the node
// passed: the policy it stopped under, so check judges the record against
// the same cap and critics on a host that configures none (CI).
type ReviewStop struct {
	Node string
	// Cap and Critics are the policy in force: the round cap and, for
	// critic-review, the configured critics.
	Cap       int
	Critics   []string
	Rounds    int
	StoppedAt int
}

// Receipt is the (unsigned) receipt of s.
func (s ReviewStop) Receipt() *Decision {
	critics := make([]any, len(s.Critics))
	for i, c := range s.Critics {
		critics[i] = c
	}
	return &Decision{Node: s.Node, Kind: KindReview, Outcome: "stopped", Via: ViaLoop, By: ByLoop, At: Now(), Data: map[string]any{
		"cap": s.Cap, "critics": critics, "rounds": s.Rounds, "stoppedAt": s.StoppedAt,
	}}
}

// ReviewStopAt returns the recorded stop of the review at node in a trusted
// state.
func (s *State) ReviewStopAt(node string) (ReviewStop, bool) {
	d, ok := s.Reviews[node]
	if !ok || d == nil {
		return ReviewStop{}, false
	}
	out := ReviewStop{Node: d.Node, Cap: dataInt(d, "cap"), Rounds: dataInt(d, "rounds"), StoppedAt: dataInt(d, "stoppedAt")}
	list, _ := d.Data["critics"].([]any)
	for _, c := range list {
		if name, ok := c.(string); ok {
			out.Critics = append(out.Critics, name)
		}
	}
	return out, true
}

func dataInt(d *Decision, key string) int {
	switch v := d.Data[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return 0
}

// trustReceipts keeps the receipts of kind the signer honours that belong
// to st's walk; the others are reported on their node.
func (v *TrustedView) trustReceipts(st *State, s *Signer, strict bool, fault func(*Decision) string) {
	keep := func(d *Decision, kind string) bool {
		what := kind + " receipt"
		why := ""
		ok, unsigned := s.Honours(d, strict)
		switch {
		case d.Kind != kind:
			why = fmt.Sprintf("is a %s record, not a %s", d.Kind, what)
		case !ok:
			why = unsigned
		case d.WorkItem != st.WorkItem:
			why = "was recorded for another work item"
		case d.Loop != "" && st.Loop != "" && d.Loop != st.Loop:
			why = fmt.Sprintf("was recorded in %s, not %s", d.Loop, st.Loop)
		case unsigned == "":
			why = fault(d)
		}
		if why != "" {
			v.Dropped++
			v.Findings[d.Node] = append(v.Findings[d.Node], fmt.Sprintf("%s for %s %s — ignored", what, d.Node, why))
			return false
		}
		return true
	}
	runs := make([]*Decision, 0, len(st.CriticRuns))
	for _, d := range st.CriticRuns {
		if keep(d, KindCriticRun) {
			runs = append(runs, d)
		}
	}
	v.State.CriticRuns = runs
	byNode := func(m map[string]*Decision, kind string) map[string]*Decision {
		out := map[string]*Decision{}
		for _, node := range slices.Sorted(maps.Keys(m)) {
			if d := m[node]; d.Node != node {
				v.Dropped++
				v.Findings[node] = append(v.Findings[node], fmt.Sprintf("%s receipt for %s was recorded for %s — ignored", kind, node, d.Node))
			} else if keep(d, kind) {
				out[node] = d
			}
		}
		return out
	}
	v.State.TestRuns = byNode(st.TestRuns, KindTestRun)
	v.State.Reviews = byNode(st.Reviews, KindReview)
}

func dataString(d *Decision, key string) string {
	s, _ := d.Data[key].(string)
	return s
}
