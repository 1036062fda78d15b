package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/service"
)

const serveHookToken = "serve-test-token-0123456789"

// startServe runs serve --http with config and vars until the test ends
// and returns its base URL.
func startServe(t *testing.T, config string, vars map[string]string) (string, *lockedBuffer) {
	t.Helper()
	vars["LOOP_TOKEN"] = serveHookToken
	env, _, errb, cfg := serveEnv(t, "", vars)
	require.NoError(t, os.WriteFile(cfg, []byte("mcp:\n  http:\n    tokenEnv: LOOP_TOKEN\n"+config), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, env, []string{"serve", "--config", cfg, "--http", ":0", "--db", filepath.Join(t.TempDir(), "the-loop.db")})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	re := regexp.MustCompile(`listening on (http://\S+)/mcp`)
	var base string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(errb.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 10*time.Second, 20*time.Millisecond, errb.String())
	return base, errb
}

func postHook(t *testing.T, url, secret, id string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", id)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const hookConfig = "webhooks:\n  github:\n    secretEnv: GH_HOOK_SECRET\npolling:\n  sources: [{system: github, repos: [octo/widgets], checkout: /nonexistent}]\n"

func TestServeAcceptsSignedGitHubDeliveries(t *testing.T) {
	base, errb := startServe(t, hookConfig, map[string]string{"GH_HOOK_SECRET": "hook-secret-value"})
	body := []byte(`{"action":"created","issue":{"number":3},"comment":{"body":"LGTM"},"repository":{"full_name":"octo/widgets"},"sender":{"login":"bob"}}`)
	code, answer := postHook(t, base+"/webhooks/github", "hook-secret-value", "d-1", body)
	assert.Equal(t, http.StatusAccepted, code, answer)
	assert.Contains(t, answer, `"outcome":"accepted"`)
	code, answer = postHook(t, base+"/webhooks/github", "hook-secret-value", "d-1", body)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Contains(t, answer, `"outcome":"duplicate"`)
	code, _ = postHook(t, base+"/webhooks/github", "another-secret", "d-2", body)
	assert.Equal(t, http.StatusUnauthorized, code, "no MCP bearer token is asked: the signature authenticates")
	assert.Contains(t, errb.String(), "webhooks: accepting GitHub deliveries")
	assert.NotContains(t, errb.String(), "hook-secret-value", "the secret is never logged")
}

func TestServeRefusesWebhooksWithoutTheirSecret(t *testing.T) {
	env, _, errb, cfg := serveEnv(t, "", map[string]string{"LOOP_TOKEN": serveHookToken})
	require.NoError(t, os.WriteFile(cfg, []byte("mcp:\n  http:\n    tokenEnv: LOOP_TOKEN\n"+hookConfig), 0o600))
	code := Main(context.Background(), env, []string{"serve", "--config", cfg, "--http", ":0", "--db", filepath.Join(t.TempDir(), "the-loop.db")})
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb.String(), "webhooks.github.secretEnv names GH_HOOK_SECRET, which is unset or empty: export the secret entered in the GitHub webhook's settings, or remove webhooks.github.secretEnv to serve no GitHub webhooks")
}

func TestServeWithoutWebhooksAnswers404NamingTheKey(t *testing.T) {
	base, _ := startServe(t, "", map[string]string{})
	code, answer := postHook(t, base+"/webhooks/github", "x", "d-1", []byte(`{}`))
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, answer, "webhooks are off: set webhooks.github.secretEnv")
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeMetricsAndProbes(t *testing.T) {
	// A free loopback port for the metrics listener.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	vars := map[string]string{"GH_HOOK_SECRET": "hook-secret-value", "LOOP_TOKEN": serveHookToken}
	env, _, errb, cfg := serveEnv(t, "", vars)
	require.NoError(t, os.WriteFile(cfg, []byte("mcp:\n  http:\n    tokenEnv: LOOP_TOKEN\n"+hookConfig), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	db := filepath.Join(t.TempDir(), "the-loop.db")
	go func() {
		done <- Main(ctx, env, []string{"serve", "--config", cfg, "--http", ":0", "--metrics-addr", addr, "--db", db})
	}()
	defer func() { cancel(); <-done }()
	re := regexp.MustCompile(`listening on (http://\S+)/mcp`)
	var base string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(errb.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 10*time.Second, 20*time.Millisecond, errb.String())

	body := []byte(`{"action":"created","issue":{"number":3},"repository":{"full_name":"octo/widgets"},"sender":{"login":"bob"}}`)
	code, _ := postHook(t, base+"/webhooks/github", "hook-secret-value", "d-1", body)
	require.Equal(t, http.StatusAccepted, code)
	code, _ = postHook(t, base+"/webhooks/github", "wrong", "d-2", body)
	require.Equal(t, http.StatusUnauthorized, code)

	code, scrape := getBody(t, "http://"+addr+"/metrics")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, scrape, `theloop_webhook_deliveries_total{outcome="accepted",provider="github"} 1`)
	assert.Contains(t, scrape, `theloop_webhook_deliveries_total{outcome="bad_signature",provider="github"} 1`)
	assert.Contains(t, scrape, `theloop_store_write_wait_seconds_count`)
	assert.NotContains(t, scrape, `octo/widgets`, "never labelled by item or repository")

	code, h := getBody(t, "http://"+addr+"/healthz")
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"status":"ok"}`, h)

	// polling.sources are configured and no poller runs: not ready, saying why, on both listeners.
	for _, u := range []string{"http://" + addr + "/readyz", base + "/readyz"} {
		code, ready := getBody(t, u)
		assert.Equal(t, http.StatusServiceUnavailable, code, u)
		assert.Contains(t, ready, `"status":"not ready"`)
		assert.Contains(t, ready, `{"name":"store","ok":true}`)
		assert.Contains(t, ready, "no poll cycle has ended yet")
	}
	// A heartbeat written now makes it ready.
	hb := service.DefaultPollStatusPath(db)
	require.NoError(t, os.WriteFile(hb, []byte(`{"sources":[{"system":"github","container":"octo/widgets","items":[]}]}`), 0o644))
	code, ready := getBody(t, base+"/readyz")
	assert.Equal(t, http.StatusOK, code, ready)
}
