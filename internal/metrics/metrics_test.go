package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheScrapeIsLintCleanAndCarriesEveryFamily(t *testing.T) {
	m := New()
	m.Cycle(time.Unix(1_700_000_000, 0), 1500*time.Millisecond, false)
	m.SourceError("github")
	m.Request("github", 304, 4999)
	m.Delivery("github", "accepted")
	m.GateEvaluated("pass")
	m.Sessions(map[string]int{"live": 2})
	m.StoreWait(3 * time.Millisecond)

	problems, err := testutil.GatherAndLint(m.Registry())
	require.NoError(t, err)
	assert.Empty(t, problems)

	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/plain")
	for _, want := range []string{
		`theloop_poll_cycles_total{outcome="ok"} 1`,
		`theloop_poll_cycles_total{outcome="failed"} 0`,
		`theloop_poll_cycle_duration_seconds_count 1`,
		`theloop_poll_last_cycle_timestamp_seconds 1.7e+09`,
		`theloop_poll_source_errors_total{tracker="github"} 1`,
		`theloop_tracker_requests_total{code="304",tracker="github"} 1`,
		`theloop_tracker_quota_remaining{tracker="github"} 4999`,
		`theloop_webhook_deliveries_total{outcome="accepted",provider="github"} 1`,
		`theloop_gate_evaluations_total{outcome="pass"} 1`,
		`theloop_sessions{state="live"} 2`,
		`theloop_sessions{state="queued"} 0`,
		`theloop_store_write_wait_seconds_count 1`,
		`go_goroutines`,
	} {
		assert.Contains(t, string(body), want)
	}
}

func TestTheRoundTripperCountsEachAnswerAndTheQuota(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/nolimit") {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("X-RateLimit-Remaining", "4321")
		w.WriteHeader(http.StatusOK)
	}))
	defer upstream.Close()
	m := New()
	c := &http.Client{Transport: m.RoundTripper("github", http.DefaultTransport)}
	for _, p := range []string{"/a", "/b", "/nolimit"} {
		resp, err := c.Get(upstream.URL + p)
		require.NoError(t, err)
		resp.Body.Close()
	}
	_, err := c.Get("http://127.0.0.1:1/refused")
	require.Error(t, err)
	assert.Equal(t, 2.0, testutil.ToFloat64(m.requests.WithLabelValues("github", "200")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.requests.WithLabelValues("github", "404")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.requests.WithLabelValues("github", "error")))
	assert.Equal(t, 4321.0, testutil.ToFloat64(m.quota.WithLabelValues("github")), "an answer without the header leaves the quota as it was")
}

func TestNilMetricsRecordNothing(t *testing.T) {
	var m *Metrics
	m.Cycle(time.Now(), time.Second, true)
	m.SourceError("jira")
	m.Request("jira", 200, 1)
	m.Delivery("github", "accepted")
	m.GateEvaluated("pass")
	m.Sessions(nil)
	m.StoreWait(time.Second)
	assert.Equal(t, http.DefaultTransport, m.RoundTripper("github", http.DefaultTransport))
}
