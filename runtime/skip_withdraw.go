package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// WithdrawSkips withdraws declared skips (an operator act, CLI only) for
// nodes the walk has not reached, whoever declared them: a shell, the
// phase-selection reply or a handoff. The node is walked again when the
// pointer reaches it. A token that names no declared skip, or a node the
// walk already passed, is rejected with the reason. Withdrawing only ever
// adds work, so it needs no signature; it is recorded in the event log and
// on the ticket.
func (r *Runtime) WithdrawSkips(ctx context.Context, id string, tokens []string, reason, actor string) (SkipResult, error) {
	reason, actor, err := checkSkipAct(id, tokens, reason, actor, "withdrawal is refused. Record why this work item walks the phase after all", "withdraw")
	if err != nil {
		return SkipResult{}, err
	}
	res := SkipResult{WorkItem: id, Reason: reason, Declared: []string{}, Withdrawn: []string{}, Rejected: []Rejection{}, Cautions: []string{}}
	order, _ := r.skipTokens(tokens, &res)
	err = r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		var evs []EventRecord
		for _, node := range order {
			d, declared := st.Skips[node]
			switch {
			case !declared:
				res.Rejected = append(res.Rejected, Rejection{Token: node, Why: "no skip is declared for it"})
			case r.reached(st, node):
				res.Rejected = append(res.Rejected, Rejection{Token: node, Why: "the walk already passed it — move the pointer back with `the-loop graph force` to walk it"})
			default:
				delete(st.Skips, node)
				res.Withdrawn = append(res.Withdrawn, node)
				evs = append(evs, EventRecord{Name: "graph.skip_withdrawn", Node: node,
					Data: r.operatorOS().stamp(map[string]any{"via": ViaCLI, "declaredVia": d.Via, "by": actor, "reason": reason})})
			}
		}
		for _, rj := range res.Rejected {
			evs = append(evs, EventRecord{Name: "graph.skip_withdrawal_rejected", Data: map[string]any{"token": rj.Token, "why": rj.Why}})
		}
		if len(evs) == 0 {
			return nil, errNoSave
		}
		return evs, nil
	})
	if err != nil && !errors.Is(err, errNoSave) {
		return res, fmt.Errorf("withdraw skips of %s: %w", id, err)
	}
	if len(res.Withdrawn) > 0 {
		body := fmt.Sprintf("🤖 _the-loop_ — **skips withdrawn**\n\n%s (%s) withdrew the declared skips of `%s`: these phases will be walked.\n\nReason: %s\n", actor, r.operatorOS(), strings.Join(res.Withdrawn, "`, `"), reason)
		if w := r.postAudit(ctx, id, body); w != "" {
			res.Cautions = append(res.Cautions, w)
		}
	}
	return res, nil
}

// skipTokens expands the tokens of a skip act on the graph: the nodes they
// name in walk order, each with the token that named it; a token that
// names no node is rejected into res.
func (r *Runtime) skipTokens(tokens []string, res *SkipResult) (order []string, accepted map[string]string) {
	order, accepted, rejected := ExpandSkipTokens(r.Graph, tokens)
	for _, t := range rejected {
		res.Rejected = append(res.Rejected, Rejection{Token: t, Why: SkipTokenRefusal(r.Graph, t)})
	}
	return order, accepted
}

// reached reports whether the walk in st has entered node or passed it.
func (r *Runtime) reached(st *State, node string) bool {
	n, _ := r.Graph.Node(node)
	cur, ok := r.Graph.Node(st.CurrentNode)
	return node == st.CurrentNode || st.Entered(node) || ok && n.Index() <= cur.Index()
}
