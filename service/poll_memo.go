package service

import (
	"context"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// CommentRecheck is how long the poller reuses an issue's comments while
// neither the issue's updated time nor its comment count moves; after it,
// the comments are listed again (a conditional request, free when nothing
// changed), so an edit that moved neither is still seen.
const CommentRecheck = 15 * time.Minute

// commentMemo keeps each watched issue's last comment listing with the
// issue's updated time and comment count as the issue listing gave them, so
// a cycle lists the comments only of issues that changed. The count is what
// keeps a reply from waiting: a ticket system's updated time has a
// resolution of one second, so a reply posted in the second of the loop's
// own edit leaves it unchanged, but it always adds a comment. An issue
// whose listing gives no count (Jira's) or no updated time is listed every
// cycle. The memo holds exactly the issues of the last listing of each
// container: it is sized to what is watched.
type commentMemo struct {
	mu    sync.Mutex
	byKey map[memoScope]map[string]memoEntry // ref -> entry, per watched container
}

// memoScope is one watched container of one system.
type memoScope struct{ system, container string }

type memoEntry struct {
	updated  time.Time
	count    int
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

// comments returns the comments of ref: the remembered listing when
// neither the issue's updated time nor its comment count has moved since it
// was taken (and CommentRecheck has not passed since now), else a fresh
// listing. An issue without an updated time or a comment count is always
// listed.
func (m *commentMemo) comments(ctx context.Context, prov integrations.Provider, scope memoScope, key string, ref integrations.Ref, is integrations.Issue, now time.Time) ([]integrations.Comment, error) {
	memo := !is.UpdatedAt.IsZero() && is.CommentsKnown
	if memo {
		m.mu.Lock()
		e, ok := m.byKey[scope][key]
		m.mu.Unlock()
		if ok && e.updated.Equal(is.UpdatedAt) && e.count == is.Comments && now.Sub(e.listed) < CommentRecheck {
			return e.comments, nil
		}
	}
	cs, err := prov.ListComments(ctx, ref)
	if err != nil || !memo {
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
	m.byKey[scope][key] = memoEntry{updated: is.UpdatedAt, count: is.Comments, listed: now, comments: cs}
	return cs, nil
}
