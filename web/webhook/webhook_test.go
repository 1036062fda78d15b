package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/internal/syncbuf"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

const secret = "It's a Secret to Everybody"

// syncBuffer is a log or stderr several goroutines write and the test reads.
type syncBuffer = syncbuf.Buffer

// rig is serve --http's webhook feed over a real store and a real HTTP
// server, with the fake GitHub the poller reads.
type rig struct {
	t      testing.TB
	m      *metrics.Metrics
	fake   *providertest.Server
	svc    *service.Service
	repo   string
	ref    integrations.Ref
	srv    *httptest.Server
	log    *syncBuffer
	wake   service.WakeChan
	counts map[string]int
	mu     sync.Mutex
}

func newRig(t testing.TB) *rig {
	t.Helper()
	r := &rig{t: t, m: metrics.New(), fake: providertest.NewGitHub(t), repo: t.TempDir(), log: &syncBuffer{}, wake: make(service.WakeChan, 1), counts: map[string]int{}}
	require.NoError(t, os.MkdirAll(filepath.Join(r.repo, filepath.Dir(repoconfig.Path)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(r.repo, repoconfig.Path), []byte("ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"), 0o644))
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"alice", "bob"}
	cfg.Routing.SelfLogins = []string{"the-loop-bot"}
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{"octo/widgets"}, Checkout: r.repo}}
	prov, err := github.New(github.Options{BaseURL: r.fake.URL(), Token: r.fake.Token()})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.svc = service.New(cfg, service.Deps{Store: store.NewHandle(filepath.Join(t.TempDir(), "the-loop.db")),
		Signer: runtime.NewSigner([]byte("test-key")), Log: logger, Waker: r.wake, Metrics: r.m,
		Providers: func(string) (integrations.Provider, error) { return prov, nil }})
	t.Cleanup(func() { _ = r.svc.Close() })
	h, err := NewGitHub(Options{Secret: []byte(secret), SecretKey: "webhooks.github.secretEnv", MaxBodyBytes: 64 << 10, Core: r.svc, Log: logger,
		Count: func(o string) { r.mu.Lock(); r.counts[o]++; r.mu.Unlock() }})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle(GitHubPath, h)
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	r.ref = integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}
	return r
}

func sign(body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// commentPayload is GitHub's issue_comment payload, cut to the fields read.
func commentPayload(repo string, number int, login, body string) []byte {
	b, _ := json.Marshal(map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": number, "title": "Widgets"},
		"comment":    map[string]any{"id": 99, "body": body, "user": map[string]any{"login": login}},
		"repository": map[string]any{"full_name": repo, "name": strings.Split(repo, "/")[1]},
		"sender":     map[string]any{"login": login},
	})
	return b
}

// post delivers body as event with id, signed by sig (headers as GitHub sends them).
func (r *rig) post(event, id string, body []byte, headers map[string]string) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.srv.URL+GitHubPath, bytes.NewReader(body))
	require.NoError(r.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/abc123")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", sign(body))
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return resp.StatusCode, string(out)
}

func (r *rig) woken() bool {
	select {
	case <-r.wake:
		return true
	default:
		return false
	}
}

func (r *rig) count(outcome string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[outcome]
}

func TestASignedCommentIsAcceptedAndWakesThePoller(t *testing.T) {
	r := newRig(t)
	code, body := r.post("issue_comment", "d-1", commentPayload("octo/widgets", 1, "bob", "Approved."), nil)
	assert.Equal(t, http.StatusAccepted, code, body)
	assert.JSONEq(t, `{"outcome":"accepted","woken":["github:octo/widgets#1"]}`, body)
	assert.True(t, r.woken())
	assert.Equal(t, 1, r.count("accepted"))
}

func TestABadSignatureIs401AndLogsNoBody(t *testing.T) {
	r := newRig(t)
	payload := commentPayload("octo/widgets", 1, "mallory", "secret-looking-body-text")
	tampered := bytes.Replace(payload, []byte("mallory"), []byte("malloRy"), 1)
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write(payload)
	for _, c := range []struct {
		name    string
		body    []byte
		headers map[string]string
		reason  string
	}{
		{"one byte changed", tampered, map[string]string{"X-Hub-Signature-256": sign(payload)}, "does not verify against the webhook secret"},
		{"another secret", payload, map[string]string{"X-Hub-Signature-256": "sha256=" + strings.Repeat("ab", 32)}, "does not verify"},
		{"unsigned", payload, map[string]string{"X-Hub-Signature-256": ""}, "carries no X-Hub-Signature-256 header"},
		{"sha1 only", payload, map[string]string{"X-Hub-Signature-256": "", "X-Hub-Signature": "sha1=" + hex.EncodeToString(mac.Sum(nil))}, "signed with SHA-1 only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := "d-" + strings.ReplaceAll(c.name, " ", "-")
			code, body := r.post("issue_comment", id, c.body, c.headers)
			assert.Equal(t, http.StatusUnauthorized, code)
			assert.Contains(t, body, c.reason)
			assert.False(t, r.woken(), "nothing woken")
			logged := r.log.String()
			assert.Contains(t, logged, "webhook delivery refused")
			assert.Contains(t, logged, "delivery="+id+" ")
			assert.NotContains(t, logged, "secret-looking-body-text", "the body is never logged")
		})
	}
	assert.Equal(t, 4, r.count(OutcomeBadSignature))

	// A refused delivery reserved nothing: the same id, signed, is accepted.
	code, _ := r.post("issue_comment", "d-one-byte-changed", payload, nil)
	assert.Equal(t, http.StatusAccepted, code)
	assert.True(t, r.woken())
}

func TestARedeliveryChangesNothing(t *testing.T) {
	r := newRig(t)
	payload := commentPayload("octo/widgets", 1, "bob", "Approved.")
	code, _ := r.post("issue_comment", "72d3162e-cc78-11e3-81ab-4c9367dc0958", payload, nil)
	require.Equal(t, http.StatusAccepted, code)
	require.True(t, r.woken())
	code, body := r.post("issue_comment", "72d3162e-cc78-11e3-81ab-4c9367dc0958", payload, nil)
	assert.Equal(t, http.StatusAccepted, code, "a redelivery is an idempotent success")
	assert.JSONEq(t, `{"outcome":"duplicate"}`, body)
	assert.False(t, r.woken(), "a redelivery wakes nothing")
	assert.Equal(t, 1, r.count("duplicate"))
}

func TestDeliveriesTheLoopDoesNotActOnAreIgnored(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		name, event string
		payload     []byte
		reason      string
	}{
		{"an unwatched repository", "issue_comment", commentPayload("octo/other", 1, "bob", "Approved."), "octo/other is not among polling.sources"},
		{"the loop's own comment", "issue_comment", commentPayload("octo/widgets", 1, "the-loop-bot", "<!-- the-loop:checklist -->"), "the loop's own account"},
		{"a push", "push", []byte(`{"ref":"refs/heads/main","repository":{"full_name":"octo/widgets"}}`), "the loop acts on no push event"},
		{"an event go-github has no type for", "some_future_event", []byte(`{"repository":{"full_name":"octo/widgets"}}`), "the loop acts on no some_future_event event"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := r.post(c.event, "d-"+c.name, c.payload, nil)
			assert.Equal(t, http.StatusAccepted, code, body)
			assert.Contains(t, body, `"outcome":"ignored"`)
			assert.Contains(t, body, c.reason)
			assert.False(t, r.woken())
			assert.Contains(t, r.log.String(), "level=DEBUG msg=\"webhook delivery ignored\"")
		})
	}
	code, body := r.post("ping", "d-ping", []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`), nil)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Contains(t, body, "pong")
}

func TestEventsWakeTheItemTheyConcern(t *testing.T) {
	r := newRig(t)
	repo := `"repository":{"full_name":"octo/widgets"},"sender":{"login":"carol"}`
	for _, c := range []struct {
		event, payload, woken string
	}{
		{"issues", `{"action":"labeled","issue":{"number":4},` + repo + `}`, `["github:octo/widgets#4"]`},
		{"pull_request", `{"action":"synchronize","number":5,"pull_request":{"number":5},` + repo + `}`, `["github:octo/widgets#5"]`},
		{"pull_request_review", `{"action":"submitted","pull_request":{"number":6},"review":{"state":"approved"},` + repo + `}`, `["github:octo/widgets#6"]`},
		{"pull_request_review_comment", `{"action":"created","pull_request":{"number":7},"comment":{"body":"nit"},` + repo + `}`, `["github:octo/widgets#7"]`},
		{"check_run", `{"action":"completed","check_run":{"pull_requests":[{"number":8},{"number":9}]},` + repo + `}`, `["github:octo/widgets#8","github:octo/widgets#9"]`},
		{"check_run", `{"action":"completed","check_run":{"pull_requests":[]},` + repo + `}`, `["*"]`},
		{"status", `{"sha":"abc","state":"failure",` + repo + `}`, `["*"]`},
	} {
		t.Run(c.event, func(t *testing.T) {
			code, body := r.post(c.event, fmt.Sprintf("d-%s-%s", c.event, c.woken), []byte(c.payload), nil)
			assert.Equal(t, http.StatusAccepted, code, body)
			assert.JSONEq(t, `{"outcome":"accepted","woken":`+c.woken+`}`, body)
			r.woken()
		})
	}
}

func TestOversizedAndMalformedDeliveriesAreRefused(t *testing.T) {
	r := newRig(t)
	big := commentPayload("octo/widgets", 1, "bob", strings.Repeat("x", 70<<10))
	code, body := r.post("issue_comment", "d-big", big, nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Contains(t, body, "larger than 65536 bytes (webhooks.maxBodyBytes)")

	code, body = r.post("issue_comment", "d-type", []byte("x"), map[string]string{"Content-Type": "text/plain"})
	assert.Equal(t, http.StatusUnsupportedMediaType, code, body)

	bad := []byte(`{"issue": "not an object"}`)
	code, body = r.post("issue_comment", "d-json", bad, nil)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "payload does not parse")

	code, _ = r.post("issue_comment", "", commentPayload("octo/widgets", 1, "bob", "hi"), map[string]string{"X-GitHub-Delivery": ""})
	assert.Equal(t, http.StatusBadRequest, code)

	resp, err := http.Get(r.srv.URL + GitHubPath)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.False(t, r.woken())
}

func TestNoSecretNoEndpoint(t *testing.T) {
	_, err := NewGitHub(Options{SecretKey: "webhooks.github.secretEnv", MaxBodyBytes: 1, Core: &service.Service{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set webhooks.github.secretEnv")

	srv := httptest.NewServer(Off("webhooks.github.secretEnv"))
	defer srv.Close()
	resp, err := http.Post(srv.URL+GitHubPath, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(b), "webhooks are off: set webhooks.github.secretEnv")
}
