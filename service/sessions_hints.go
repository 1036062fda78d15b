package service

import (
	"context"
	"fmt"
	"slices"

	"github.com/the-loop/the-loop/internal/nearest"
	"github.com/the-loop/the-loop/store"
)

// hintScan bounds how many of the newest sessions a "did you mean" reads.
const hintScan = 500

// recentSessions are the newest recorded sessions (at most hintScan).
func recentSessions(ctx context.Context, st *store.Store) []store.Session {
	recs, err := st.ListSessions(ctx, store.SessionFilter{Limit: hintScan})
	if err != nil {
		return nil
	}
	return recs
}

// sessionHint is the "did you mean" of an unknown session id: the recorded
// ids nearest to it, else where to find the recorded ones.
func sessionHint(ctx context.Context, st *store.Store, id string) string {
	recs := recentSessions(ctx, st)
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if p := nearest.Phrase(nearest.Close(id, ids)); p != "" {
		return p
	}
	return "the-loop sessions list shows the recorded ones"
}

// itemSessionsHint is the warning of a list filtered by an item that has
// no session: the items with sessions whose ids are nearest to it.
func itemSessionsHint(ctx context.Context, st *store.Store, item string) string {
	var items []string
	for _, r := range recentSessions(ctx, st) {
		items = append(items, r.WorkItem)
	}
	slices.Sort(items)
	items = slices.Compact(items)
	msg := fmt.Sprintf("no session was ever launched for %s", item)
	if p := nearest.Phrase(nearest.Close(item, items)); p != "" {
		msg += "; " + p
	}
	return msg
}

// stateHint is the "did you mean" of an unknown --state value.
func stateHint(state string) string {
	if p := nearest.Phrase(nearest.Close(state, sessionStates)); p != "" {
		return "; " + p
	}
	return ""
}
