package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/nearest"
)

// ErrReasonRequired refuses an operator act without a reason.
var ErrReasonRequired = errors.New("--reason is required")

// ForceResult is the outcome of a force.
type ForceResult struct {
	WorkItem string `json:"workItem"`
	FromNode string `json:"fromNode"`
	ToNode   string `json:"toNode"`
	Reason   string `json:"reason"`
	// Cautions say what the force bypasses (an undeclared edge, a required
	// node, an unsigned record); they are part of its record and JSON.
	Cautions []string `json:"warnings"`
}

// Force moves the pointer to node `to` (an operator act, CLI only). It
// records a signed audit entry and marks the target forced; it never marks
// the bypassed gate satisfied and runs no entry chain.
func (r *Runtime) Force(ctx context.Context, id, to, reason, actor string) (ForceResult, error) {
	if err := ValidateID(id); err != nil {
		return ForceResult{}, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return ForceResult{}, fmt.Errorf("%w: an unexplained override is refused. Record why you are bypassing the gate", ErrReasonRequired)
	}
	target, ok := r.Graph.Node(to)
	if !ok {
		hint := ""
		if p := nearest.Phrase(nearest.Close(to, r.Graph.IDs())); p != "" {
			hint = p + " "
		}
		return ForceResult{}, fmt.Errorf("unknown node %q; %sdeclared nodes are: %s", to, hint, strings.Join(r.Graph.IDs(), ", "))
	}
	if actor == "" {
		actor = "(shell)"
	}
	res := ForceResult{WorkItem: id, ToNode: to, Reason: reason, Cautions: []string{}}
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		from := st.CurrentNode
		if from == "" {
			from = r.Graph.Start
		}
		fromNode, ok := r.Graph.Node(from)
		if !ok {
			return nil, fmt.Errorf("the stored pointer %q names no node of %s", from, r.Graph.Name)
		}
		res.FromNode = from
		if next, _ := r.Graph.Next(from, "pass"); next != to && !r.Graph.HasEdge(from, to) {
			res.Cautions = append(res.Cautions, fmt.Sprintf("%s → %s is not a declared edge; you are deliberately outside the model", from, to))
		}
		for _, n := range []*Node{fromNode, target} {
			if n.Required {
				res.Cautions = append(res.Cautions, fmt.Sprintf("node %q is marked required — this force bypasses a guarantee the process treats as mandatory", n.ID))
				break
			}
		}
		d := &Decision{WorkItem: st.WorkItem, Loop: r.Graph.Name, Node: to, Kind: KindForce, Via: ViaCLI, By: actor, Reason: reason, At: Now(),
			Data: r.operatorOS().stamp(map[string]any{"from": from, "warnings": append([]string(nil), res.Cautions...)})}
		if err := r.sign(st, d); err != nil {
			return nil, fmt.Errorf("sign force: %w", err)
		}
		st.Forced = append(st.Forced, d)
		for _, rec := range st.Nodes {
			rec.RouteBacks = 0 // an operator resumed the walk: the gates count afresh
		}
		evs := r.enter(st, to)
		st.EntryPending = "" // force moves the pointer only: no entry chain runs
		st.Record(to).Forced = true
		st.Escalation = nil
		evs = append(evs, EventRecord{Name: "graph.forced", Node: to, Data: r.operatorOS().stamp(map[string]any{"from": from, "reason": reason, "actor": actor, "warnings": res.Cautions})})
		return evs, nil
	})
	if err != nil {
		return res, fmt.Errorf("force %s: %w", id, err)
	}
	if w := r.unsignedAct("force"); w != "" {
		res.Cautions = append(res.Cautions, w)
	}
	who := r.operatorOS()
	r.log().Warn("forced transition", "workItem", id, "from", res.FromNode, "to", to, "actor", actor, "osUser", who.User, "host", who.Host)
	var b strings.Builder
	fmt.Fprintf(&b, "🤖 _the-loop_ — **forced transition**\n\n`%s` → `%s` by %s (%s).\n\nReason: %s\n", res.FromNode, to, actor, who, reason)
	for _, w := range res.Cautions {
		fmt.Fprintf(&b, "- ⚠️ %s\n", w)
	}
	b.WriteString("\nThis moved the pointer only: the bypassed gate keeps its real verdict, and `the-loop check --recompute` still reports it.\n")
	if w := r.postAudit(ctx, id, b.String()); w != "" {
		res.Cautions = append(res.Cautions, w)
	}
	return res, nil
}

// unsignedAct warns that an operator act made on a host without a signing
// key is recorded unsigned ("" when the host signs).
func (r *Runtime) unsignedAct(act string) string {
	if r.signer().CanSign() {
		return ""
	}
	return fmt.Sprintf("this host holds no signing key: the %s is recorded unsigned, and check --recompute (like any host that verifies decisions) ignores it; run it on the poller's host, which holds signing.privateKeyFile", act)
}

// postAudit posts a self-marked audit comment when a tracker and a ticket
// ref are known; it returns a warning on failure.
func (r *Runtime) postAudit(ctx context.Context, id, body string) string {
	if r.Tracker == nil {
		return ""
	}
	st, _, err := r.Persist.Load(ctx, id)
	if err != nil || st.Ref == "" {
		return ""
	}
	ref, err := ParseTicketRef(st.Ref)
	if err != nil {
		return ""
	}
	if _, err := r.Tracker.CreateComment(ctx, ref, integrations.MarkSelfAuthored(body)); err != nil {
		return fmt.Sprintf("could not post the audit comment: %v", err)
	}
	return ""
}

// SkipResult is the outcome of declaring skips.
type SkipResult struct {
	WorkItem string   `json:"workItem"`
	Declared []string `json:"declared"`
	// Withdrawn are the skips a withdrawal removed (--withdraw only).
	Withdrawn []string    `json:"withdrawn,omitempty"`
	Rejected  []Rejection `json:"rejected"`
	Reason    string      `json:"reason"`
	// Cautions say what the act could not do (an unsigned record, an audit
	// comment not posted); they are part of its JSON.
	Cautions []string `json:"warnings"`
}

// Rejection names a refused token and why.
type Rejection struct {
	Token string `json:"token"`
	Why   string `json:"why"`
}

// DeclareSkips records operator skip declarations (CLI only) for nodes the
// pointer has not reached.
func (r *Runtime) DeclareSkips(ctx context.Context, id string, tokens []string, reason, actor string) (SkipResult, error) {
	reason, actor, err := checkSkipAct(id, tokens, reason, actor, "skip is refused. Record why this work item does not walk the phase", "declare")
	if err != nil {
		return SkipResult{}, err
	}
	res := SkipResult{WorkItem: id, Reason: reason, Declared: []string{}, Rejected: []Rejection{}, Cautions: []string{}}
	order, accepted := r.skipTokens(tokens, &res)
	err = r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		var evs []EventRecord
		for _, node := range order {
			if r.reached(st, node) {
				res.Rejected = append(res.Rejected, Rejection{Token: node, Why: "already entered or behind the pointer — a skip is a plan, not an amnesty"})
				continue
			}
			if _, exists := st.Skips[node]; !exists {
				d := &Decision{WorkItem: st.WorkItem, Loop: r.Graph.Name, Node: node, Kind: KindSkip, Via: ViaCLI, Token: accepted[node], By: actor, Reason: reason, At: Now(),
					Data: r.operatorOS().stamp(nil)}
				if err := r.sign(st, d); err != nil {
					return nil, fmt.Errorf("sign skip: %w", err)
				}
				st.Skips[node] = d
			}
			res.Declared = append(res.Declared, node)
		}
		if len(res.Declared) > 0 {
			evs = append(evs, EventRecord{Name: "graph.skips_declared", Data: r.operatorOS().stamp(map[string]any{"via": ViaCLI, "nodes": res.Declared, "by": actor, "reason": reason})})
		}
		for _, rj := range res.Rejected {
			evs = append(evs, EventRecord{Name: "graph.skips_rejected", Data: map[string]any{"token": rj.Token, "why": rj.Why}})
		}
		return evs, nil
	})
	if err != nil {
		return res, fmt.Errorf("skip %s: %w", id, err)
	}
	if w := r.unsignedAct("skip declaration"); w != "" && len(res.Declared) > 0 {
		res.Cautions = append(res.Cautions, w)
	}
	if len(res.Declared) > 0 {
		body := fmt.Sprintf("🤖 _the-loop_ — **declared skips**\n\n%s (%s) declared these phases skipped: `%s`.\n\nReason: %s\n", actor, r.operatorOS(), strings.Join(res.Declared, "`, `"), reason)
		if w := r.postAudit(ctx, id, body); w != "" {
			res.Cautions = append(res.Cautions, w)
		}
	}
	return res, nil
}

// Cleanup enters the cleanup node from wherever the item stands (idempotent).
func (r *Runtime) Cleanup(ctx context.Context, id, reason string) (bool, error) {
	if _, ok := r.Graph.Node("cleanup"); !ok {
		return false, nil
	}
	moved := false
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		if st.CurrentNode == "" || st.CurrentNode == "cleanup" {
			return nil, errNoSave
		}
		from := st.CurrentNode
		evs := r.enter(st, "cleanup")
		moved = true
		return append(evs, EventRecord{Name: "graph.cleaned", Node: "cleanup", Data: map[string]any{"from": from, "reason": reason}}), nil
	})
	if errors.Is(err, errNoSave) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cleanup %s: %w", id, err)
	}
	r.runEntry(ctx, id, "cleanup")
	return moved, nil
}

// checkSkipAct validates an operator's skip declaration or withdrawal and
// returns its trimmed reason and its actor ("(shell)" when unnamed).
func checkSkipAct(id string, tokens []string, reason, actor, unexplained, verb string) (string, string, error) {
	if err := ValidateID(id); err != nil {
		return "", "", err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", "", fmt.Errorf("%w: an unexplained %s", ErrReasonRequired, unexplained)
	}
	if len(tokens) == 0 {
		return "", "", fmt.Errorf("name at least one node or skip set to %s (--node)", verb)
	}
	if actor == "" {
		actor = "(shell)"
	}
	return reason, actor, nil
}
