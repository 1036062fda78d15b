package service

import (
	"context"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

// noteChangedEvidence records, once each, that a comment a recorded
// decision rests on was edited or deleted (gates.ChangedEvidence). The
// decision itself stands as signed; the event is the trace for people.
func (s *Service) noteChangedEvidence(ctx context.Context, repoDir, id string, st *runtime.State, thread []integrations.Comment) {
	evs := gates.ChangedEvidence(st, thread)
	if len(evs) == 0 {
		return
	}
	seen := map[string]bool{}
	if past, err := s.Events(ctx, ItemRequest{Repo: repoDir, WorkItem: id}); err == nil {
		for _, e := range past.Events {
			if e.Name == gates.EventDecisionCommentChanged {
				seen[changeKey(e.Node, e.Data)] = true
			}
		}
	}
	var fresh []runtime.EventRecord
	for _, e := range evs {
		if k := changeKey(e.Node, e.Data); !seen[k] {
			seen[k] = true
			fresh = append(fresh, e)
			s.log().Warn("a comment a decision rests on changed", "workItem", id, "node", e.Node, "commentUrl", e.Data["commentUrl"], "change", e.Data["change"])
		}
	}
	if err := s.appendEvents(ctx, repoDir, id, fresh); err != nil {
		s.log().Warn("could not record the changed comment", "workItem", id, "err", err)
	}
}

func changeKey(node string, data map[string]any) string {
	get := func(k string) string { v, _ := data[k].(string); return v }
	return node + "\x00" + get("commentUrl") + "\x00" + get("change") + "\x00" + get("currentSha256")
}
