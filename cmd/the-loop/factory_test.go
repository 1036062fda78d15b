package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slackHook is an incoming-webhook endpoint that keeps what it receives.
type slackHook struct {
	mu    sync.Mutex
	texts []string
	srv   *httptest.Server
}

func newSlackHook(t *testing.T) *slackHook {
	t.Helper()
	h := &slackHook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct{ Text string }
		if r.Method != http.MethodPost || json.Unmarshal(body, &msg) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.texts = append(h.texts, msg.Text)
		h.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *slackHook) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.texts...)
}

// The notifier is wired from the config by the factory: a claim that
// escalates reaches the configured Slack webhook, through the real CLI.
func TestAConfiguredSlackWebhookReceivesTheEscalation(t *testing.T) {
	hook := newSlackHook(t)
	repo := copyDir(t, fixtureRepo(t))
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("integrations:\n  slack:\n    webhookUrlEnv: TEST_SLACK_URL\n"), 0o600))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db"), "THE_LOOP_CONFIG": cfg,
		"TEST_SLACK_URL": hook.srv.URL + "/services/T000/B000/secret"}

	// issue-2 blocks at requirements-definition; the same failing claim
	// twice in a row escalates to a human.
	_, errOut, code := runCLI(t, env, "graph", "complete", "issue-2", "--repo", repo)
	require.Equal(t, exitUnmet, code, errOut)
	assert.Empty(t, hook.received(), "a block is not an escalation")
	out, errOut, code := runCLI(t, env, "graph", "complete", "issue-2", "--repo", repo)
	require.Equal(t, exitUnmet, code, errOut)
	assert.Contains(t, out, `"currentNode": "escalated"`)

	got := hook.received()
	require.Len(t, got, 1, "the escalated node's entry notifies once")
	assert.Contains(t, got[0], "issue-2")
	assert.Contains(t, got[0], "conflict-escalated")
	assert.Contains(t, got[0], "operator")
}

// Slack is opt-in: with no webhook the escalation still happens.
func TestWithoutASlackWebhookTheWalkStillEscalates(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	runCLI(t, env, "graph", "complete", "issue-2", "--repo", repo)
	out, errOut, code := runCLI(t, env, "graph", "complete", "issue-2", "--repo", repo)
	require.Equal(t, exitUnmet, code, errOut)
	assert.Contains(t, out, `"currentNode": "escalated"`, "the walk escalates with no channel configured")
}

// A webhook the notifier cannot use is a configuration error naming the
// variable, never the URL (a secret).
func TestAnUnusableSlackWebhookIsAConfigurationError(t *testing.T) {
	env := map[string]string{"SLACK_WEBHOOK_URL": "ftp://hooks.example/secret-path-123"}
	_, errOut, code := runCLI(t, env, "graph", "status", "issue-1", "--repo", fixtureRepo(t))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "SLACK_WEBHOOK_URL")
	assert.NotContains(t, errOut, "secret-path-123")
}
