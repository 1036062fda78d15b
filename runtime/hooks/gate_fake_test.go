package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// gateFake is a ticket integration that records every call. Methods the
// gates must never need are left to the embedded nil interface, so calling
// one panics loudly.
type gateFake struct {
	integrations.Provider
	mu       sync.Mutex
	thread   []integrations.Comment
	labels   []string
	listErr  error
	postErr  error
	labelErr error
	posted   []string
	calls    []string
	nextID   int64
}

func (f *gateFake) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *gateFake) Name() string { return "fake" }

func (f *gateFake) Operations() []integrations.Op {
	return []integrations.Op{integrations.OpListComments, integrations.OpCreateComment, integrations.OpGetIssue, integrations.OpAddLabels, integrations.OpRemoveLabel}
}

func (f *gateFake) ListComments(_ context.Context, _ integrations.Ref) ([]integrations.Comment, error) {
	f.record("list-comments")
	if f.listErr != nil {
		return nil, f.listErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]integrations.Comment(nil), f.thread...), nil
}

func (f *gateFake) CreateComment(_ context.Context, _ integrations.Ref, body string) (integrations.Comment, error) {
	f.record("create-comment")
	if f.postErr != nil {
		return integrations.Comment{}, f.postErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	at := time.Now().Add(time.Hour).Add(time.Duration(1000+f.nextID) * time.Second)
	c := integrations.Comment{ID: 1000 + f.nextID, Author: "the-loop-bot", Body: body, URL: fmt.Sprintf("https://github.test/o/r/issues/1#issuecomment-%d", 1000+f.nextID), CreatedAt: at, UpdatedAt: at}
	f.posted = append(f.posted, body)
	f.thread = append(f.thread, c)
	return c, nil
}

func (f *gateFake) GetIssue(_ context.Context, ref integrations.Ref) (integrations.Issue, error) {
	f.record("get-issue")
	if f.labelErr != nil {
		return integrations.Issue{}, f.labelErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return integrations.Issue{Ref: ref, Labels: append([]string(nil), f.labels...)}, nil
}

func (f *gateFake) AddLabels(_ context.Context, _ integrations.Ref, labels []string) error {
	f.record("add-labels")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.labels = append(f.labels, labels...)
	return nil
}

func (f *gateFake) RemoveLabel(_ context.Context, _ integrations.Ref, label string) error {
	f.record("remove-label:" + label)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, l := range f.labels {
		if l == label {
			f.labels = append(f.labels[:i], f.labels[i+1:]...)
			break
		}
	}
	return nil
}

// gateNotifier records notifications.
type gateNotifier struct {
	err  error
	sent []string
}

func (n *gateNotifier) Notify(_ context.Context, event, text string) error {
	n.sent = append(n.sent, event+"|"+text)
	return n.err
}

var errGateOutage = errors.New("github: 502 bad gateway")

// gateCtx builds a hook context over a temporary repository whose work item
// issue-1 has its spec folder, a fake tracker, and a config authorizing
// alice and bob (the loop posts as the-loop-bot).
func gateCtx(t *testing.T, node *runtime.Node, params map[string]any) (*runtime.HookContext, *gateFake) {
	t.Helper()
	repo := t.TempDir()
	spec := filepath.Join(repo, "docs", "specs", "issue-1")
	require.NoError(t, os.MkdirAll(spec, 0o755))
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"@Alice", "bob"}
	cfg.Routing.SelfLogins = []string{"the-loop-bot"}
	if params == nil {
		params = map[string]any{}
	}
	fake := &gateFake{}
	return &runtime.HookContext{
		Context:          t.Context(),
		WorkItem:         runtime.WorkItem{Ref: "github:o/r#1", ID: "issue-1", SpecDir: spec},
		Repo:             repo,
		RelSpecDir:       "docs/specs/issue-1",
		Node:             node,
		Boundary:         "exit",
		Params:           params,
		State:            runtime.NewState("issue-1"),
		SkippedArtifacts: map[string]bool{},
		Config:           cfg,
		Tracker:          fake,
		TicketRef:        integrations.Ref{System: "github", Owner: "o", Repo: "r", Number: 1},
	}, fake
}

// gateReadOnly turns hc into a check-time context: no event, no tracker.
func gateCheck(hc *runtime.HookContext) {
	hc.ReadOnly = true
	hc.Tracker = nil
	hc.Notifier = nil
	hc.Event = nil
	hc.TicketRef = integrations.Ref{}
}

// gateEvent sets the event's comments.
func gateEvent(hc *runtime.HookContext, cs ...integrations.Comment) {
	hc.Event = &runtime.Event{Comments: cs}
}

func gateComment(id int64, author, body string) integrations.Comment {
	// Dated in the future of any visit the test opens, as a real reply is.
	at := time.Now().Add(time.Hour).Add(time.Duration(id) * time.Second)
	return integrations.Comment{ID: id, Author: author, Body: body, URL: fmt.Sprintf("https://github.test/o/r/issues/1#issuecomment-%d", id), CreatedAt: at, UpdatedAt: at}
}

// editedComment is c as a provider reports it after its author edited it.
func editedComment(c integrations.Comment) integrations.Comment {
	c.UpdatedAt = c.CreatedAt.Add(90 * time.Second)
	return c
}

func gateWrite(t *testing.T, hc *runtime.HookContext, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(hc.WorkItem.SpecDir, name), []byte(text), 0o644))
}

func gateRead(t *testing.T, hc *runtime.HookContext, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, name))
	require.NoError(t, err)
	return string(b)
}

// gateMessages renders a result's messages.
func gateMessages(r runtime.Result) []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.String()
	}
	return out
}

// gateDecisionOf returns the decision a result reports.
func gateDecisionOf(t *testing.T, r runtime.Result) *runtime.Decision {
	t.Helper()
	d, ok := r.Data["decision"].(*runtime.Decision)
	require.True(t, ok, "result carries a *runtime.Decision: %#v", r.Data)
	return d
}
