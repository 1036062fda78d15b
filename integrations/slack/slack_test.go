package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
)

const secretPath = "/services/T0000/B0000/SECRETxyz123"

type hook struct {
	mu      sync.Mutex
	texts   []string
	ctype   string
	status  int
	reply   string
	arrived chan struct{}
	block   bool
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != secretPath {
		http.NotFound(w, r)
		return
	}
	var in struct {
		Text string `json:"text"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	h.mu.Lock()
	h.texts = append(h.texts, in.Text)
	h.ctype = r.Header.Get("Content-Type")
	status, reply, block := h.status, h.reply, h.block
	h.mu.Unlock()
	if block {
		close(h.arrived)
		<-r.Context().Done()
		return
	}
	if status == 0 {
		status, reply = 200, "ok"
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(reply))
}

type recorded struct {
	event string
	err   error
}

func newNotifier(t *testing.T, h *hook, opts Options) (*Notifier, *[]recorded, *bytes.Buffer, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var rec []recorded
	var logs bytes.Buffer
	opts.WebhookURL = srv.URL + secretPath
	opts.Record = func(_ context.Context, event string, err error) { rec = append(rec, recorded{event, err}) }
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	n, err := New(opts)
	require.NoError(t, err)
	return n, &rec, &logs, opts.WebhookURL
}

func TestNotifyPostsText(t *testing.T) {
	h := &hook{}
	n, rec, _, _ := newNotifier(t, h, Options{})
	require.NoError(t, n.Notify(context.Background(), "phase-approval-pending", "Design is ready for review"))
	require.NoError(t, n.Notify(context.Background(), "session.awaiting_input", ""))
	assert.Equal(t, []string{"Design is ready for review", "session.awaiting_input"}, h.texts)
	assert.Equal(t, "application/json", h.ctype)
	assert.Empty(t, *rec)
}

func TestNotifyFiltersEvents(t *testing.T) {
	h := &hook{}
	n, _, _, _ := newNotifier(t, h, Options{Events: []string{"phase-approval-pending"}})
	require.NoError(t, n.Notify(context.Background(), "other-event", "x"))
	require.NoError(t, n.Notify(context.Background(), "phase-approval-pending", "y"))
	assert.Equal(t, []string{"y"}, h.texts)
}

func TestFailuresNeverCarryTheWebhookURL(t *testing.T) {
	tests := []struct {
		name     string
		hook     *hook
		closeSrv bool
		wantKind error
		wantText string
	}{
		{name: "slack refuses", hook: &hook{status: 404, reply: "no_service"}, wantKind: integrations.ErrNotFound, wantText: "no_service"},
		{name: "slack refuses with the url echoed", hook: &hook{status: 400, reply: "invalid_payload for " + secretPath}, wantKind: integrations.ErrInvalid, wantText: "invalid_payload"},
		{name: "slack is down", hook: &hook{status: 500, reply: "oops"}, wantKind: integrations.ErrUnavailable, wantText: "HTTP 500"},
		{name: "connection refused", hook: &hook{}, closeSrv: true, wantKind: integrations.ErrUnavailable, wantText: "post"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.hook)
			var rec []recorded
			var logs bytes.Buffer
			webhook := srv.URL + secretPath
			n, err := New(Options{WebhookURL: webhook, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				Record: func(_ context.Context, e string, err error) { rec = append(rec, recorded{e, err}) }})
			require.NoError(t, err)
			if tc.closeSrv {
				srv.Close()
			} else {
				defer srv.Close()
			}
			err = n.Notify(context.Background(), "gate", "hello")
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.wantKind)
			assert.Contains(t, err.Error(), tc.wantText)
			require.Len(t, rec, 1, "the failure is recorded")
			assert.Equal(t, "gate", rec[0].event)
			for _, text := range []string{err.Error(), rec[0].err.Error(), logs.String()} {
				assert.NotContains(t, text, "SECRETxyz123")
				assert.NotContains(t, text, webhook)
			}
		})
	}
}

func TestNotifyDoesNotWedgeOnAHangingWebhook(t *testing.T) {
	h := &hook{block: true, arrived: make(chan struct{})}
	n, rec, _, _ := newNotifier(t, h, Options{FailSoft: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-h.arrived
		cancel()
	}()
	assert.NoError(t, n.Notify(ctx, "gate", "hello"), "FailSoft reports nothing to the caller")
	require.Len(t, *rec, 1, "but the failure is recorded")
	assert.True(t, errors.Is((*rec)[0].err, integrations.ErrUnavailable))
}

func TestNewRefusesBadURLsWithoutEchoingThem(t *testing.T) {
	for _, u := range []string{"", "http://hooks.slack.com/services/SECRETxyz123", "ftp://x/SECRETxyz123", "::SECRETxyz123"} {
		_, err := New(Options{WebhookURL: u})
		require.Error(t, err, u)
		assert.NotContains(t, err.Error(), "SECRETxyz123")
		assert.Contains(t, err.Error(), "integrations.slack.webhookUrlEnv")
	}
}

func TestFromConfig(t *testing.T) {
	_, err := FromConfig(config.Slack{WebhookURLEnv: "HOOK"}, func(string) string { return "" }, Options{})
	require.ErrorIs(t, err, ErrNotConfigured)
	assert.Contains(t, err.Error(), "HOOK")

	n, err := FromConfig(config.Slack{WebhookURLEnv: "HOOK", Events: []string{"a"}}, func(k string) string {
		if k == "HOOK" {
			return "https://hooks.slack.com/services/T/B/SECRETxyz123"
		}
		return ""
	}, Options{})
	require.NoError(t, err)
	assert.True(t, n.Wants("a"))
	assert.False(t, n.Wants("b"))
}
