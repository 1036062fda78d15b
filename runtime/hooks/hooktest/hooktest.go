// Package hooktest builds what hook tests share: a hook context over a
// temporary repository, a recording ticket tracker and notifier, and
// comment and result helpers.
package hooktest

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

// Fake is a ticket integration that records every call. Methods hooks must
// never need are left to the embedded nil interface, so calling one panics
// loudly.
type Fake struct {
	integrations.Provider
	mu sync.Mutex
	// Thread is the ticket's comments, oldest first; CreateComment appends.
	Thread []integrations.Comment
	// Labels are the ticket's labels.
	Labels []string
	// ListErr, PostErr and LabelErr fail ListComments, CreateComment and
	// GetIssue.
	ListErr, PostErr, LabelErr error
	// Posted are the bodies CreateComment received.
	Posted []string
	// Calls names every call, in order ("remove-label:<label>" for a removal).
	Calls []string
	// Pulls are the pull requests it serves, by OWNER/REPO#N (AddPull);
	// Edits counts EditComment calls.
	Pulls  map[string]*Pull
	Edits  int
	nextID int64
}

func (f *Fake) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls = append(f.Calls, call)
}

// Name implements integrations.Provider.
func (f *Fake) Name() string { return "fake" }

// Host is the GitHub host the fake speaks as: its comments and pull
// requests live on github.test.
func (f *Fake) Host() string { return "github.test" }

// Operations implements integrations.Provider.
func (f *Fake) Operations() []integrations.Op {
	return []integrations.Op{integrations.OpListComments, integrations.OpCreateComment, integrations.OpGetIssue, integrations.OpAddLabels, integrations.OpRemoveLabel}
}

// ListComments implements integrations.Provider.
func (f *Fake) ListComments(_ context.Context, _ integrations.Ref) ([]integrations.Comment, error) {
	f.record("list-comments")
	if f.ListErr != nil {
		return nil, f.ListErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]integrations.Comment(nil), f.Thread...), nil
}

// NextID is the id the next comment on the thread gets: above every id on
// it, as a ticket system numbers its comments (the loop's own comments
// from 1001, so a test's small ids stay apart from them).
func (f *Fake) NextID() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nextLocked()
}

func (f *Fake) nextLocked() int64 {
	f.nextID = max(f.nextID+1, 1001)
	for _, c := range f.Thread {
		f.nextID = max(f.nextID, c.ID+1)
	}
	return f.nextID
}

// CreateComment implements integrations.Provider.
func (f *Fake) CreateComment(_ context.Context, _ integrations.Ref, body string) (integrations.Comment, error) {
	f.record("create-comment")
	if f.PostErr != nil {
		return integrations.Comment{}, f.PostErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.nextLocked()
	at := time.Now().Add(time.Hour).Add(time.Duration(id) * time.Second)
	c := integrations.Comment{ID: id, Author: "the-loop-bot", Body: body, URL: fmt.Sprintf("https://github.test/o/r/issues/1#issuecomment-%d", id), CreatedAt: at, UpdatedAt: at}
	f.Posted = append(f.Posted, body)
	f.Thread = append(f.Thread, c)
	return c, nil
}

// GetIssue implements integrations.Provider.
func (f *Fake) GetIssue(_ context.Context, ref integrations.Ref) (integrations.Issue, error) {
	f.record("get-issue")
	if f.LabelErr != nil {
		return integrations.Issue{}, f.LabelErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return integrations.Issue{Ref: ref, Labels: append([]string(nil), f.Labels...)}, nil
}

// AddLabels implements integrations.Provider.
func (f *Fake) AddLabels(_ context.Context, _ integrations.Ref, labels []string) error {
	f.record("add-labels")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Labels = append(f.Labels, labels...)
	return nil
}

// RemoveLabel implements integrations.Provider.
func (f *Fake) RemoveLabel(_ context.Context, _ integrations.Ref, label string) error {
	f.record("remove-label:" + label)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, l := range f.Labels {
		if l == label {
			f.Labels = append(f.Labels[:i], f.Labels[i+1:]...)
			break
		}
	}
	return nil
}

// Notifier records notifications as "event|text".
type Notifier struct {
	Err  error
	Sent []string
}

// Notify implements integrations.Notifier.
func (n *Notifier) Notify(_ context.Context, event, text string) error {
	n.Sent = append(n.Sent, event+"|"+text)
	return n.Err
}

// ErrOutage is a tracker failure.
var ErrOutage = errors.New("github: 502 bad gateway")

// NewContext builds a HookContext by hand over a fresh repository in
// t.TempDir() whose work item issue-1 has its spec folder
// docs/specs/issue-1 created: no tracker, no config. node may be nil.
func NewContext(t *testing.T, node *runtime.Node, params map[string]any) *runtime.HookContext {
	t.Helper()
	repo := t.TempDir()
	spec := filepath.Join(repo, "docs", "specs", "issue-1")
	require.NoError(t, os.MkdirAll(spec, 0o755))
	if params == nil {
		params = map[string]any{}
	}
	return &runtime.HookContext{
		Context:          t.Context(),
		WorkItem:         runtime.WorkItem{Ref: "issue-1", ID: "issue-1", SpecDir: spec},
		Repo:             repo,
		RelSpecDir:       "docs/specs/issue-1",
		Node:             node,
		Boundary:         "exit",
		Params:           params,
		SkippedArtifacts: map[string]bool{},
	}
}

// GateContext builds a hook context over a temporary repository whose work
// item issue-1 (github:o/r#1) has its spec folder, a fake tracker, a fresh
// state, and a config authorizing alice and bob (the loop posts as
// the-loop-bot).
func GateContext(t *testing.T, node *runtime.Node, params map[string]any) (*runtime.HookContext, *Fake) {
	t.Helper()
	hc := NewContext(t, node, params)
	hc.WorkItem.Ref = "github:o/r#1"
	hc.State = runtime.NewState("issue-1")
	hc.Config = config.Default()
	hc.Config.Routing.AuthorizedUsers = []string{"@Alice", "bob"}
	hc.Config.Routing.SelfLogins = []string{"the-loop-bot"}
	fake := &Fake{}
	hc.Tracker = fake
	hc.TicketRef = integrations.Ref{System: "github", Owner: "o", Repo: "r", Number: 1}
	return hc, fake
}

// CheckOnly turns hc into a check-time context: no event, no tracker.
func CheckOnly(hc *runtime.HookContext) {
	hc.ReadOnly = true
	hc.Tracker = nil
	hc.CodeHost = nil
	hc.Notifier = nil
	hc.Event = nil
	hc.TicketRef = integrations.Ref{}
}

// SetEvent sets the event's comments.
func SetEvent(hc *runtime.HookContext, cs ...integrations.Comment) {
	hc.Event = &runtime.Event{Comments: cs}
}

// Comment is a reply by author, dated in the future of any visit the test
// opens, as a real reply is.
func Comment(id int64, author, body string) integrations.Comment {
	at := time.Now().Add(time.Hour).Add(time.Duration(id) * time.Second)
	return integrations.Comment{ID: id, Author: author, Body: body, URL: fmt.Sprintf("https://github.test/o/r/issues/1#issuecomment-%d", id), CreatedAt: at, UpdatedAt: at}
}

// Edited is c as a provider reports it after its author edited it.
func Edited(c integrations.Comment) integrations.Comment {
	c.UpdatedAt = c.CreatedAt.Add(90 * time.Second)
	return c
}

// WriteArtifact writes name (slash path) into the spec folder and returns
// its path.
func WriteArtifact(t *testing.T, hc *runtime.HookContext, name, text string) string {
	t.Helper()
	p := filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// ReadArtifact returns the text of name in the spec folder.
func ReadArtifact(t *testing.T, hc *runtime.HookContext, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(name)))
	require.NoError(t, err)
	return string(b)
}

// Texts renders a result's messages.
func Texts(r runtime.Result) []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.String()
	}
	return out
}

// DecisionOf returns the decision a result reports.
func DecisionOf(t *testing.T, r runtime.Result) *runtime.Decision {
	t.Helper()
	d, ok := r.Data["decision"].(*runtime.Decision)
	require.True(t, ok, "result carries a *runtime.Decision: %#v", r.Data)
	return d
}

// NilIfEmpty returns nil for an empty slice, so an empty result compares
// equal to no result.
func NilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
