package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

const jiraSecret = "jira-admin-webhook-secret"

// refsWaker remembers the refs woken.
type refsWaker struct{ refs *[]string }

func (w refsWaker) Wake(_ context.Context, ref string) error {
	*w.refs = append(*w.refs, ref)
	return nil
}

func newJiraRig(t *testing.T) (*httptest.Server, *[]string, *syncBuffer) {
	t.Helper()
	cfg := config.Default()
	cfg.Routing.SelfLogins = []string{"the-loop-bot"}
	cfg.Polling.Sources = []config.Source{{System: "jira", Projects: []string{"OPS"}, Checkout: t.TempDir()}}
	var refs []string
	log := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := service.New(cfg, service.Deps{Store: store.NewHandle(filepath.Join(t.TempDir(), "the-loop.db")), Waker: refsWaker{&refs}, Log: logger})
	t.Cleanup(func() { _ = svc.Close() })
	h, err := NewJira(Options{Secret: []byte(jiraSecret), SecretKey: "webhooks.jira.secretEnv", MaxBodyBytes: 1 << 20, Core: svc, Log: logger})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, &refs, log
}

func postJira(t *testing.T, url, id string, body []byte, sig string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("X-Atlassian-Webhook-Identifier", id)
	if sig == "" {
		m := hmac.New(sha256.New, []byte(jiraSecret))
		m.Write(body)
		sig = "sha256=" + hex.EncodeToString(m.Sum(nil))
	}
	if sig != "-" {
		req.Header.Set("X-Hub-Signature", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const jiraComment = `{"timestamp":1765000000000,"webhookEvent":"comment_created",
 "comment":{"id":"10001","body":"Approved.","author":{"accountId":"5b10ac8d82e05b22cc7d4ef5","displayName":"Bob"}},
 "issue":{"id":"10010","key":"OPS-7","fields":{"project":{"key":"OPS"}}}}`

func TestJiraSignedAdminWebhooks(t *testing.T) {
	srv, refs, log := newJiraRig(t)
	code, body := postJira(t, srv.URL, "jira-1", []byte(jiraComment), "")
	assert.Equal(t, http.StatusAccepted, code, body)
	assert.JSONEq(t, `{"outcome":"accepted","woken":["jira:OPS-7"]}`, body)

	code, body = postJira(t, srv.URL, "jira-1", []byte(jiraComment), "")
	assert.Equal(t, http.StatusAccepted, code)
	assert.JSONEq(t, `{"outcome":"duplicate"}`, body, "Jira's retry reuses the identifier")

	for _, c := range []struct{ name, sig, want string }{
		{"unsigned", "-", "carries no X-Hub-Signature header"},
		{"sha1", "sha1=" + strings.Repeat("a", 40), "is not sha256=<hex>"},
		{"wrong", "sha256=" + strings.Repeat("ab", 32), "does not verify"},
		{"not hex", "sha256=zz", "does not verify"},
	} {
		code, body = postJira(t, srv.URL, "jira-"+c.name, []byte(jiraComment), c.sig)
		assert.Equal(t, http.StatusUnauthorized, code, c.name)
		assert.Contains(t, body, c.want, c.name)
	}
	assert.NotContains(t, log.String(), "Approved.", "the body is never logged")

	other := strings.ReplaceAll(jiraComment, "OPS", "HR")
	code, body = postJira(t, srv.URL, "jira-hr", []byte(other), "")
	assert.Equal(t, http.StatusAccepted, code)
	assert.Contains(t, body, "HR is not among polling.sources")

	link := `{"webhookEvent":"issuelink_created","issueLink":{"id":10,"sourceIssueId":10010,"destinationIssueId":10011}}`
	code, body = postJira(t, srv.URL, "jira-link", []byte(link), "")
	assert.Equal(t, http.StatusAccepted, code)
	assert.JSONEq(t, `{"outcome":"accepted","woken":["*"]}`, body, "a link names its ends by id: a sweep")

	self := strings.Replace(jiraComment, `"accountId":"5b10ac8d82e05b22cc7d4ef5"`, `"name":"the-loop-bot"`, 1)
	code, body = postJira(t, srv.URL, "jira-self", []byte(self), "")
	assert.Equal(t, http.StatusAccepted, code)
	assert.Contains(t, body, "the loop's own account")

	assert.Equal(t, []string{"jira:OPS-7", "*"}, *refs)
}
