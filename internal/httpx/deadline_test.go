package httpx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trickle sends its headers at once, then one byte of body at a time,
// forever (until the client goes away).
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", `W/"slow"`)
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "[")
	w.(http.Flusher).Flush()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// within fails the test when fn has not returned after limit: a guard
// against the hang the test is about, not a timing assertion.
func within(t *testing.T, limit time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still blocked after %s: the request is not bounded", limit)
	}
}

// Fault 4: a server that sends headers and then trickles the body cannot
// hold a request past its deadline, on a plain or a conditional (cached)
// request, and retries stay bounded too.
func TestASlowBodyIsCutOffAtTheAttemptDeadline(t *testing.T) {
	for _, conditional := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "conditional"}[conditional], func(t *testing.T) {
			opts := Options{AttemptTimeout: 150 * time.Millisecond, MaxRetries: 2}
			if conditional {
				opts.Conditional = func(*http.Request) bool { return true }
			}
			client, tr, url, _ := newClient(t, opts, http.HandlerFunc(trickle))
			var err error
			within(t, 30*time.Second, func() {
				var resp *http.Response
				resp, err = client.Get(url + "/repos/o/r/issues")
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					_ = resp.Body.Close()
				}
			})
			require.Error(t, err)
			assert.True(t, errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "within"), "%v", err)
			assert.Contains(t, err.Error(), "integrations.requestTimeoutSeconds")
			assert.LessOrEqual(t, tr.Stats().Sent, int64(3), "the retries are bounded too")
		})
	}
}

func TestAFastBodyOutlivesTheAttemptContext(t *testing.T) {
	client, _, url, _ := newClient(t, Options{AttemptTimeout: time.Minute}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"ok":true}`, string(body))
}
