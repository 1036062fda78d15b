package runtime

import (
	"context"
	"errors"
	"fmt"
)

// Nodes of the inner loop the merge and close of its pull request move to.
const (
	innerApprovalNode = "pr-approval"
	innerDoneNode     = "complete"
	escalatedNode     = "escalated"
)

// MergeResult is what the merge of an inner loop's pull request did.
type MergeResult struct {
	// Moved is true when the pointer moved (to complete, or escalated).
	Moved bool   `json:"moved"`
	Node  string `json:"node"`
	// Escalated is true when the merge could not count as an approval.
	Escalated bool   `json:"escalated"`
	Reason    string `json:"reason,omitempty"`
}

// FinishOnMerge ends an inner loop whose pull request merged. A merge by an
// authorized person (authorized) is that person's approval of the pull
// request: it is recorded, signed, as the pr-approval decision (via merge)
// and the loop moves to complete. A merge by anyone else approves nothing:
// the loop is escalated for a human to decide. A loop already complete is
// left alone.
func (r *Runtime) FinishOnMerge(ctx context.Context, id, by, url string, authorized bool) (MergeResult, error) {
	if _, ok := r.Graph.Node(innerApprovalNode); !ok {
		return MergeResult{}, fmt.Errorf("%s has no %s node: only a pull request's loop ends on a merge", r.Graph.Name, innerApprovalNode)
	}
	var res MergeResult
	var enter string
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		res.Node = st.CurrentNode
		if st.CurrentNode == innerDoneNode || st.CurrentNode == "" {
			return nil, errNoSave
		}
		if !authorized {
			if st.CurrentNode == escalatedNode {
				return nil, errNoSave
			}
			why := fmt.Sprintf("the pull request was merged by %s, who is not in routing.authorizedUsers, so the merge approves nothing; a human decides how to proceed", mergerName(by))
			target, evs := r.escalateLocked(st, st.CurrentNode, why)
			enter, res.Moved, res.Escalated, res.Reason, res.Node = target, true, true, why, st.CurrentNode
			return evs, nil
		}
		d := &Decision{WorkItem: st.WorkItem, Loop: r.Graph.Name, Node: innerApprovalNode, Kind: KindGate, Outcome: OutcomeApproved,
			Via: ViaMerge, By: by, CommentURL: url, At: Now()}
		if err := r.sign(st, d); err != nil {
			return nil, fmt.Errorf("sign the merge approval: %w", err)
		}
		from := st.CurrentNode
		evs := r.enter(st, innerDoneNode)
		st.Decisions[innerApprovalNode] = d
		st.Escalation = nil
		rec := st.Record(innerApprovalNode)
		if rec.EnteredAt == "" {
			rec.EnteredAt = Now()
		}
		rec.Outcome, rec.ExitedAt = OutcomeApproved, Now()
		enter, res.Moved, res.Node = innerDoneNode, true, innerDoneNode
		return append(evs,
			EventRecord{Name: "graph.decision", Node: innerApprovalNode, Data: map[string]any{"kind": d.Kind, "outcome": d.Outcome, "by": by, "via": ViaMerge, "commentUrl": url}},
			EventRecord{Name: "graph.merged", Node: innerDoneNode, Data: map[string]any{"from": from, "by": by}}), nil
	})
	if errors.Is(err, errNoSave) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("finish %s on merge: %w", id, err)
	}
	if enter != "" {
		r.runEntry(ctx, id, enter)
	}
	return res, nil
}

// Abandon escalates an inner loop whose pull request was closed without
// merging: nothing of it lands, and a human decides (reopen it, or open
// another with `the-loop pr create`).
func (r *Runtime) Abandon(ctx context.Context, id, why string) (bool, error) {
	moved := false
	var enter string
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		if st.CurrentNode == "" || st.CurrentNode == innerDoneNode || st.CurrentNode == escalatedNode {
			return nil, errNoSave
		}
		target, evs := r.escalateLocked(st, st.CurrentNode, why)
		enter, moved = target, true
		return evs, nil
	})
	if errors.Is(err, errNoSave) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("abandon %s: %w", id, err)
	}
	if enter != "" {
		r.runEntry(ctx, id, enter)
	}
	return moved, nil
}

// mergerName names who merged a pull request.
func mergerName(login string) string {
	if login == "" {
		return "an unknown account"
	}
	return "@" + login
}
