// Package reviews holds the hook of the review nodes: review-rounds gates a
// node's round table (evidence/self-review.md, evidence/critic-review.md)
// through the rules of package review, against the critic runs the loop
// itself recorded for the work item at that node.
package reviews

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
	"github.com/the-loop/the-loop/runtime/review"
)

// HookReviewRounds gates a review node's round table.
const HookReviewRounds = "review-rounds"

// ReviewRounds reads the round table of the record the node's review
// parameter names (self-review: evidence/self-review.md, critic-review:
// evidence/critic-review.md) and passes once the review may stop: on a
// counted round with zero new findings, or at the operator's cap
// (reviews.selfReviewCount, reviews.criticReviewCount). A critic row counts
// only when it names a configured critic and a run whose signed receipt the
// loop recorded for this item at this node, not unavailable and not used by
// an earlier row. It waits while no critic is configured (critic-review),
// and blocks on a missing or malformed record or while rounds are owed.
// It reads the same under check: the receipts are in the state.
func ReviewRounds(hc *runtime.HookContext) (runtime.Result, error) {
	kind := review.Kind(hc.Param("review"))
	if kind != review.Self && kind != review.Critic {
		return runtime.Result{}, fmt.Errorf("review must be %s or %s, got %q", review.Self, review.Critic, kind)
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	doc, err := d.Read(kind.File())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return runtime.Blocked(HookReviewRounds, runtime.Errorf(d.Rel(kind.File()), "cannot read the review record: %v", err)), nil
	}
	p := policy(hc, kind)
	if loop := d.LoopDir(); loop != "" {
		p.File = loop + "/" + kind.File()
	}
	v := review.Decide(kind, doc, p, runsAt(hc))
	msgs := make([]runtime.Message, len(v.Messages))
	for i, m := range v.Messages {
		msgs[i] = runtime.Message{Text: m, Severity: runtime.SevError}
	}
	switch v.Outcome {
	case review.Pass:
		for i := range msgs {
			msgs[i].Severity = runtime.SevInfo
		}
		stop := runtime.ReviewStop{Cap: p.Cap, Critics: p.Critics, Rounds: v.Counted, StoppedAt: v.StoppedAt}
		r := runtime.OK(HookReviewRounds, map[string]any{"rounds": v.Counted, "stoppedAt": v.StoppedAt})
		if !hc.ReadOnly {
			r.Data[runtime.ReceiptKey] = stop.Receipt()
		}
		r.Messages = msgs
		return r, nil
	case review.Wait:
		return runtime.Waiting(HookReviewRounds, v.Messages[0]), nil
	}
	return runtime.Blocked(HookReviewRounds, msgs...), nil
}

// policy is the operator's cap for kind and, for critic rounds, the
// configured critics. Under check, a review that stopped when the node
// passed is judged by the policy it stopped under, as its receipt records
// it: a host that configures no critic, or another cap (CI), reads the same
// verdict the loop reached.
func policy(hc *runtime.HookContext, kind review.Kind) review.Policy {
	p := review.Policy{Cap: review.DefaultCap}
	if hc.Config != nil {
		c := hc.Config.Critic
		p.Cap = c.Reviews.SelfReviewCount
		if kind == review.Critic {
			p.Cap, p.Critics = c.Reviews.CriticReviewCount, c.Names()
		}
		if p.Cap <= 0 {
			p.Cap = review.DefaultCap
		}
	}
	if !hc.ReadOnly || hc.State == nil {
		return p
	}
	if stop, ok := hc.State.ReviewStopAt(hc.NodeID()); ok && stop.Cap > 0 {
		p.Cap = stop.Cap
		for _, c := range stop.Critics {
			if kind == review.Critic && !slices.Contains(p.Critics, c) {
				p.Critics = append(p.Critics, c)
			}
		}
	}
	return p
}

// runsAt are the critic rounds the loop recorded for the item at this node,
// from the trusted state: a receipt that does not verify never reaches it.
func runsAt(hc *runtime.HookContext) []review.Run {
	if hc.State == nil {
		return nil
	}
	var out []review.Run
	for _, r := range hc.State.CriticRunsAt(hc.NodeID()) {
		out = append(out, review.Run{ID: r.ID, Critic: r.Critic, Unavailable: r.Unavailable})
	}
	return out
}
