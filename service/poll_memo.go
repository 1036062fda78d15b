package service

import (
	"context"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// CommentRecheck is how long the poller reuses an issue's comments while
// the issue's updated time does not move; after it, the comments are listed
// again (a conditional request, free when nothing changed), so an edit
// that did not move the issue is still seen.
const CommentRecheck = 15 * time.Minute

// commentMemo keeps each watched issue's last comment listing with the
// issue's updated time, so a cycle lists the comments only of issues that
// changed. It holds exactly the issues of the last listing of each
// container: it is sized to what is watched.
type commentMemo struct {
	mu    sync.Mutex
	byKey map[memoScope]map[string]memoEntry // ref -> entry, per watched container
}

// memoScope is one watched container of one system.
type memoScope struct{ system, container string }

type memoEntry struct {
	updated  time.Time
	listed   time.Time
	comments []integrations.Comment
}

// keepOnly drops the entries of container whose issue is no longer listed.
func (m *commentMemo) keepOnly(scope memoScope, issues []integrations.Issue) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.byKey[scope]
	if old == nil {
		return
	}
	keep := make(map[string]memoEntry, len(issues))
	for _, is := range issues {
		_, ref := itemFor(scope.system, scope.container, is)
		if e, ok := old[ref]; ok {
			keep[ref] = e
		}
	}
	m.byKey[scope] = keep
}

// comments returns the comments of ref: the remembered listing when the
// issue has not moved since it was taken (and CommentRecheck has not
// passed since now), else a fresh listing. An issue without an updated
// time is always listed.
func (m *commentMemo) comments(ctx context.Context, prov integrations.Provider, scope memoScope, key string, ref integrations.Ref, updated, now time.Time) ([]integrations.Comment, error) {
	if !updated.IsZero() {
		m.mu.Lock()
		e, ok := m.byKey[scope][key]
		m.mu.Unlock()
		if ok && e.updated.Equal(updated) && now.Sub(e.listed) < CommentRecheck {
			return e.comments, nil
		}
	}
	cs, err := prov.ListComments(ctx, ref)
	if err != nil || updated.IsZero() {
		return cs, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byKey == nil {
		m.byKey = map[memoScope]map[string]memoEntry{}
	}
	if m.byKey[scope] == nil {
		m.byKey[scope] = map[string]memoEntry{}
	}
	m.byKey[scope][key] = memoEntry{updated: updated, listed: now, comments: cs}
	return cs, nil
}
