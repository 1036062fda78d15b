// Package metrics holds the-loop's Prometheus metrics in a private
// registry (never the global one), served by Handler at /metrics. No
// metric is labelled by work item, session or user: those belong in the
// event log. Every method is safe on a nil *Metrics, which records
// nothing, so code paths without metrics need no checks.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one process's metrics.
type Metrics struct {
	reg          *prometheus.Registry
	cycles       *prometheus.CounterVec
	cycleSeconds prometheus.Histogram
	lastCycle    prometheus.Gauge
	sourceErrors *prometheus.CounterVec
	requests     *prometheus.CounterVec
	quota        *prometheus.GaugeVec
	deliveries   *prometheus.CounterVec
	decisions    *prometheus.CounterVec
	sessions     *prometheus.GaugeVec
	storeWait    prometheus.Histogram
}

// Session states reported by Sessions.
var SessionStates = []string{"live", "queued", "waiting", "held"}

// New returns the metrics, registered with the Go runtime's and the
// process's own collectors in a fresh registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "theloop_poll_cycles_total",
			Help: "Poll cycles run, by outcome: ok, or failed when every source failed."}, []string{"outcome"}),
		cycleSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "theloop_poll_cycle_duration_seconds",
			Help: "Duration of one poll cycle over every source.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}),
		lastCycle: prometheus.NewGauge(prometheus.GaugeOpts{Name: "theloop_poll_last_cycle_timestamp_seconds",
			Help: "When the last poll cycle ended (Unix seconds)."}),
		sourceErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "theloop_poll_source_errors_total",
			Help: "Watched repositories or projects a cycle could not read, by tracker."}, []string{"tracker"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "theloop_tracker_requests_total",
			Help: "Requests sent to a ticket system, each attempt counted, by tracker and status code (error: no answer)."}, []string{"tracker", "code"}),
		quota: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "theloop_tracker_quota_remaining",
			Help: "The rate-limit quota the tracker reported left on its last answer (X-RateLimit-Remaining)."}, []string{"tracker"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "theloop_webhook_deliveries_total",
			Help: "Webhook deliveries received, by provider and outcome: accepted, duplicate, ignored, bad_signature, refused, failed."}, []string{"provider", "outcome"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "theloop_gate_evaluations_total",
			Help: "Human gates the poller evaluated, by outcome: pass, wait, block."}, []string{"outcome"}),
		sessions: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "theloop_sessions",
			Help: "Agent sessions at the end of the last cycle, by state: live, queued, waiting, held."}, []string{"state"}),
		storeWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "theloop_store_write_wait_seconds",
			Help: "Time a store write waited for the write lock (SQLite BEGIN IMMEDIATE).", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.cycles, m.cycleSeconds, m.lastCycle, m.sourceErrors, m.requests, m.quota, m.deliveries, m.decisions, m.sessions, m.storeWait)
	for _, o := range []string{"ok", "failed"} {
		m.cycles.WithLabelValues(o)
	}
	for _, s := range SessionStates {
		m.sessions.WithLabelValues(s)
	}
	return m
}

// Registry is the private registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Cycle records one poll cycle that ended at end after d; failed when
// every source failed.
func (m *Metrics) Cycle(end time.Time, d time.Duration, failed bool) {
	if m == nil {
		return
	}
	outcome := "ok"
	if failed {
		outcome = "failed"
	}
	m.cycles.WithLabelValues(outcome).Inc()
	m.cycleSeconds.Observe(d.Seconds())
	m.lastCycle.Set(float64(end.UnixNano()) / 1e9)
}

// SourceError records a source a cycle could not read.
func (m *Metrics) SourceError(tracker string) {
	if m == nil {
		return
	}
	m.sourceErrors.WithLabelValues(tracker).Inc()
}

// Request records one request to tracker answered with status (0: no
// answer) and the quota the answer reported left (negative: none).
func (m *Metrics) Request(tracker string, status int, remaining int) {
	if m == nil {
		return
	}
	code := "error"
	if status > 0 {
		code = strconv.Itoa(status)
	}
	m.requests.WithLabelValues(tracker, code).Inc()
	if remaining >= 0 {
		m.quota.WithLabelValues(tracker).Set(float64(remaining))
	}
}

// Delivery records a webhook delivery's outcome.
func (m *Metrics) Delivery(provider, outcome string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(provider, outcome).Inc()
}

// GateEvaluated records a human gate's evaluation outcome.
func (m *Metrics) GateEvaluated(outcome string) {
	if m == nil || outcome == "" {
		return
	}
	m.decisions.WithLabelValues(outcome).Inc()
}

// Sessions sets the sessions by state (states left out are zero).
func (m *Metrics) Sessions(byState map[string]int) {
	if m == nil {
		return
	}
	for _, s := range SessionStates {
		m.sessions.WithLabelValues(s).Set(float64(byState[s]))
	}
}

// StoreWait records how long a store write waited for the write lock.
func (m *Metrics) StoreWait(d time.Duration) {
	if m == nil {
		return
	}
	m.storeWait.Observe(d.Seconds())
}

// RoundTripper counts the requests base sends to tracker (nil m: base).
func (m *Metrics) RoundTripper(tracker string, base http.RoundTripper) http.RoundTripper {
	if m == nil {
		return base
	}
	return roundTripper{m: m, tracker: tracker, base: base}
}

type roundTripper struct {
	m       *Metrics
	tracker string
	base    http.RoundTripper
}

func (t roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.m.Request(t.tracker, 0, -1)
		return resp, err
	}
	remaining := -1
	if v := resp.Header.Get("X-RateLimit-Remaining"); v != "" {
		if n, perr := strconv.Atoi(v); perr == nil && n >= 0 {
			remaining = n
		}
	}
	t.m.Request(t.tracker, resp.StatusCode, remaining)
	return resp, nil
}
