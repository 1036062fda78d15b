package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/service"
)

// A delivery to serve --http wakes `the-loop poll` on the same store, whose
// interval is an hour: the two run as they do under systemd, each its own
// command (here in one test process, so the poller's SIGUSR1 handler is
// this process's), the wake crossing from one to the other through the
// poll lock and a signal.
func TestADeliveryToServeWakesThePoller(t *testing.T) {
	f := newHandoffCLI(t)
	cfg, err := os.ReadFile(f.config)
	require.NoError(t, err)
	cfg = append(cfg, []byte("mcp:\n  http:\n    tokenEnv: LOOP_TOKEN\nwebhooks:\n  github:\n    secretEnv: GH_HOOK_SECRET\n")...)
	require.NoError(t, os.WriteFile(f.config, cfg, 0o600))
	vars := map[string]string{"TEST_GH_TOKEN": f.gh.Token(), "LOOP_TOKEN": serveHookToken, "GH_HOOK_SECRET": "hook-secret-value"}
	start := func(args ...string) (*lockedBuffer, func()) {
		errb := &lockedBuffer{}
		env := &Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: errb, Cwd: f.cwd, Getenv: func(k string) string { return vars[k] }}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() { done <- Main(ctx, env, append(args, "--config", f.config, "--db", f.db)) }()
		return errb, func() { cancel(); <-done }
	}
	heartbeat := service.DefaultPollStatusPath(f.db)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	metricsAddr := ln.Addr().String()
	require.NoError(t, ln.Close())
	pollLog, stopPoll := start("poll", "--interval", "1h", "--metrics-addr", metricsAddr)
	defer stopPoll()
	require.Eventually(t, func() bool { _, err := os.Stat(heartbeat); return err == nil }, 20*time.Second, 10*time.Millisecond, "the first cycle runs at start: %s", pollLog)
	first, err := os.Stat(heartbeat)
	require.NoError(t, err)

	serveLog, stopServe := start("serve", "--http", ":0")
	defer stopServe()
	re := regexp.MustCompile(`listening on (http://\S+)/mcp`)
	var base string
	require.Eventually(t, func() bool {
		if m := re.FindStringSubmatch(serveLog.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}, 10*time.Second, 20*time.Millisecond, serveLog.String())

	code, ready := getBody(t, base+"/readyz")
	assert.Equal(t, http.StatusOK, code, "the poller's heartbeat is fresh: %s", ready)

	body := []byte(fmt.Sprintf(`{"action":"created","issue":{"number":%d},"comment":{"body":"LGTM"},"repository":{"full_name":%q},"sender":{"login":"alice"}}`,
		f.ref.Number, providertest.GitHubRepo))
	code, answer := postHook(t, base+"/webhooks/github", "hook-secret-value", "d-wake", body)
	require.Equal(t, http.StatusAccepted, code, answer)
	assert.Contains(t, answer, fmt.Sprintf(`"woken":["github:%s#%d"]`, providertest.GitHubRepo, f.ref.Number))
	require.Eventually(t, func() bool {
		fi, err := os.Stat(heartbeat)
		return err == nil && fi.ModTime().After(first.ModTime())
	}, 10*time.Second, 10*time.Millisecond, "the woken poller runs a cycle within the hour: %s", pollLog)
	assert.NotContains(t, serveLog.String(), "could not be woken")

	// The poller's own listener: two cycles (the first, and the woken one), ready.
	require.Eventually(t, func() bool {
		_, scrape := getBody(t, "http://"+metricsAddr+"/metrics")
		return strings.Contains(scrape, `theloop_poll_cycles_total{outcome="ok"} 2`)
	}, 10*time.Second, 20*time.Millisecond)
	_, scrape := getBody(t, "http://"+metricsAddr+"/metrics")
	assert.Contains(t, scrape, `theloop_tracker_requests_total{code="200",tracker="github"}`, "the poller's requests to the fake GitHub are counted")
	code, ready = getBody(t, "http://"+metricsAddr+"/readyz")
	assert.Equal(t, http.StatusOK, code, ready)
}
