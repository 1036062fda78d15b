package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations/slack"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// slackFake is an incoming webhook: it keeps the text of every post, and
// answers status.
type slackFake struct {
	mu     sync.Mutex
	texts  []string
	status int
	srv    *httptest.Server
}

func newSlackFake(t *testing.T, status int) *slackFake {
	f := &slackFake{status: status}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Text string `json:"text"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		f.mu.Lock()
		f.texts = append(f.texts, body.Text)
		f.mu.Unlock()
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, "no_service")
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *slackFake) posts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.texts...)
}

// The webhook's path is its secret.
const webhookSecret = "/services/T0001/B0002/s3cr3tW3bh00kT0k3n"

// escalate walks item from requirements-definition into escalation: the
// same failing claim twice in a row.
func escalate(t *testing.T, svc *Service, repo, id string) CompleteResult {
	t.Helper()
	ctx := context.Background()
	item := ItemRequest{Repo: repo, WorkItem: id}
	_, err := svc.Start(ctx, StartRequest{ItemRequest: item})
	require.NoError(t, err)
	_, err = svc.Force(ctx, ForceRequest{ItemRequest: item, To: "requirements-definition", Reason: "the test starts at requirements", Actor: "op"})
	require.NoError(t, err)
	first, err := svc.Complete(ctx, CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	require.Equal(t, "block", first.Status)
	second, err := svc.Complete(ctx, CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	require.Equal(t, runtime.StatusEscalated, second.Status)
	return second
}

func notifyService(t *testing.T, hook *slackFake) (*Service, string) {
	t.Helper()
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, repoconfig.Path), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n")
	n, err := slack.New(slack.Options{WebhookURL: hook.srv.URL + webhookSecret})
	require.NoError(t, err)
	return testService(t, config.Default(), Deps{Signer: runtime.NewSigner([]byte("test-key")), Notifier: n}), repo
}

// A Slack fake receives one notification per escalation, saying which item
// escalated from where and why, and no message carries the webhook.
func TestSlackReceivesOneNotificationPerEscalation(t *testing.T) {
	hook := newSlackFake(t, http.StatusOK)
	svc, repo := notifyService(t, hook)
	escalate(t, svc, repo, "issue-1")
	escalate(t, svc, repo, "issue-2")
	_, err := svc.Complete(context.Background(), CompleteRequest{ItemRequest: ItemRequest{Repo: repo, WorkItem: "issue-1"}, Actor: "mcp"})
	require.NoError(t, err)

	var escalations []string
	for _, text := range hook.posts() {
		assert.NotContains(t, text, "s3cr3t")
		if strings.Contains(text, "(conflict-escalated)") {
			escalations = append(escalations, text)
		}
	}
	require.Len(t, escalations, 2, "one notification per escalation: %v", hook.posts())
	assert.Equal(t, "the-loop: issue-1 (github:octo/widgets#1) is at *escalated* (conflict-escalated). "+
		"Escalated from requirements-definition: requirements-definition failed the same check twice in a row. A human decides how to go on. Roles: operator", escalations[0])
	assert.Contains(t, escalations[1], "the-loop: issue-2 (github:octo/widgets#2)")
}

// A failed post never blocks the walk: the item escalates all the same, the
// failure is recorded on it, and nothing names the webhook.
func TestAFailedNotificationNeverBlocksTheWalk(t *testing.T) {
	hook := newSlackFake(t, http.StatusInternalServerError)
	svc, repo := notifyService(t, hook)
	res := escalate(t, svc, repo, "issue-1")
	assert.Equal(t, "escalated", res.CurrentNode)
	require.NotEmpty(t, hook.posts(), "the post was tried")
	joined := strings.Join(res.Messages, "\n")
	assert.Contains(t, joined, "warning: notify did not complete")
	assert.NotContains(t, joined, "s3cr3t")
	evs, err := svc.Events(context.Background(), ItemRequest{Repo: repo, WorkItem: "issue-1"})
	require.NoError(t, err)
	var degraded []string
	for _, e := range evs.Events {
		if e.Name == "graph.hook_degraded" {
			b, _ := json.Marshal(e.Data)
			degraded = append(degraded, string(b))
		}
	}
	require.NotEmpty(t, degraded, "the failed post is recorded on the item")
	assert.NotContains(t, strings.Join(degraded, "\n"), "s3cr3t")
}
