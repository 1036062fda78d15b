package httpx

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted answers each request with the next step; after the script it
// answers 200 "ok".
type scripted struct {
	mu     sync.Mutex
	steps  []func(w http.ResponseWriter, r *http.Request)
	bodies []string
	hits   int
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(data))
	i := s.hits
	s.hits++
	s.mu.Unlock()
	if i < len(s.steps) {
		s.steps[i](w, r)
		return
	}
	_, _ = w.Write([]byte("ok"))
}

func status(code int, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"message":"step"}`))
	}
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func newClient(t *testing.T, opts Options, h http.Handler) (*http.Client, *Transport, string, *sleeps) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	sl := &sleeps{}
	if opts.Sleep == nil {
		opts.Sleep = sl.sleep
	}
	tr := New(opts)
	return &http.Client{Transport: tr}, tr, srv.URL, sl
}

func TestTransportRetries(t *testing.T) {
	fixed := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { return fixed }
	tests := []struct {
		name       string
		method     string
		steps      []func(http.ResponseWriter, *http.Request)
		opts       Options
		wantStatus int
		wantHits   int
		wantSleeps []time.Duration
	}{
		{
			name:       "502 storm then success backs off exponentially",
			method:     http.MethodGet,
			steps:      []func(http.ResponseWriter, *http.Request){status(502), status(502), status(502)},
			opts:       Options{Jitter: func(d time.Duration) time.Duration { return d }},
			wantStatus: 200, wantHits: 4,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:       "storm longer than the retries returns the last failure",
			method:     http.MethodGet,
			steps:      []func(http.ResponseWriter, *http.Request){status(503), status(503), status(503)},
			opts:       Options{MaxRetries: 2, Jitter: func(d time.Duration) time.Duration { return d }},
			wantStatus: 503, wantHits: 3,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name:       "secondary limit 403 waits Retry-After",
			method:     http.MethodGet,
			steps:      []func(http.ResponseWriter, *http.Request){status(403, "Retry-After", "7")},
			wantStatus: 200, wantHits: 2,
			wantSleeps: []time.Duration{7 * time.Second},
		},
		{
			name:   "secondary limit message without Retry-After waits at least a minute",
			method: http.MethodGet,
			steps: []func(http.ResponseWriter, *http.Request){func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(403)
				_, _ = w.Write([]byte(`{"message":"You have exceeded a secondary rate limit."}`))
			}},
			opts:       Options{MaxWait: 10 * time.Minute},
			wantStatus: 200, wantHits: 2,
			wantSleeps: []time.Duration{time.Minute},
		},
		{
			name:   "primary limit waits until reset plus a second",
			method: http.MethodGet,
			steps: []func(http.ResponseWriter, *http.Request){status(403, "X-RateLimit-Remaining", "0",
				"X-RateLimit-Reset", strconv.FormatInt(fixed.Add(30*time.Second).Unix(), 10))},
			opts:       Options{Now: now},
			wantStatus: 200, wantHits: 2,
			wantSleeps: []time.Duration{31 * time.Second},
		},
		{
			name:   "primary reset beyond the wait cap is returned at once",
			method: http.MethodGet,
			steps: []func(http.ResponseWriter, *http.Request){status(403, "X-RateLimit-Remaining", "0",
				"X-RateLimit-Reset", strconv.FormatInt(fixed.Add(time.Hour).Unix(), 10))},
			opts:       Options{Now: now},
			wantStatus: 403, wantHits: 1,
		},
		{
			name:       "jira 429 with an ISO reset time",
			method:     http.MethodGet,
			steps:      []func(http.ResponseWriter, *http.Request){status(429, "X-RateLimit-Reset", fixed.Add(10*time.Second).Format(time.RFC3339))},
			opts:       Options{Now: now},
			wantStatus: 200, wantHits: 2,
			wantSleeps: []time.Duration{11 * time.Second},
		},
		{
			name:       "plain 403 is not retried",
			method:     http.MethodGet,
			steps:      []func(http.ResponseWriter, *http.Request){status(403)},
			wantStatus: 403, wantHits: 1,
		},
		{
			name:       "404 is not retried",
			method:     http.MethodGet,
			steps:      []func(http.ResponseWriter, *http.Request){status(404)},
			wantStatus: 404, wantHits: 1,
		},
		{
			name:       "POST is not resent after a 502",
			method:     http.MethodPost,
			steps:      []func(http.ResponseWriter, *http.Request){status(502)},
			wantStatus: 502, wantHits: 1,
		},
		{
			name:       "POST is resent after a 429",
			method:     http.MethodPost,
			steps:      []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "2")},
			wantStatus: 200, wantHits: 2,
			wantSleeps: []time.Duration{2 * time.Second},
		},
		{
			name:   "total wait is capped",
			method: http.MethodGet,
			steps: []func(http.ResponseWriter, *http.Request){
				status(429, "Retry-After", "40"), status(429, "Retry-After", "40"), status(429, "Retry-After", "40"),
			},
			opts:       Options{MaxWait: 90 * time.Second},
			wantStatus: 429, wantHits: 3,
			wantSleeps: []time.Duration{40 * time.Second, 40 * time.Second},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &scripted{steps: tc.steps}
			client, tr, url, sl := newClient(t, tc.opts, h)
			req, err := http.NewRequest(tc.method, url+"/x", strings.NewReader(`{"a":1}`))
			require.NoError(t, err)
			resp, err := client.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			assert.Equal(t, tc.wantStatus, resp.StatusCode, "body %s", body)
			assert.Equal(t, tc.wantHits, h.hits)
			assert.Equal(t, tc.wantSleeps, sl.d)
			assert.Equal(t, int64(tc.wantHits), tr.Stats().Sent)
			for _, b := range h.bodies {
				assert.Equal(t, `{"a":1}`, b, "every attempt carries the full body")
			}
		})
	}
}

func TestTransportJitterStaysWithinBounds(t *testing.T) {
	for range 200 {
		d := halfJitter(8 * time.Second)
		assert.GreaterOrEqual(t, d, 4*time.Second)
		assert.LessOrEqual(t, d, 8*time.Second)
	}
}

func TestTransportBackoffIsCapped(t *testing.T) {
	tr := New(Options{BaseDelay: time.Second, MaxDelay: 5 * time.Second, Jitter: func(d time.Duration) time.Duration { return d }})
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second},
		[]time.Duration{tr.backoff(0), tr.backoff(1), tr.backoff(2), tr.backoff(3), tr.backoff(10)})
}

func TestTransportStopsWhenContextEnds(t *testing.T) {
	h := &scripted{steps: []func(http.ResponseWriter, *http.Request){status(502), status(502)}}
	ctx, cancel := context.WithCancel(context.Background())
	opts := Options{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return SleepContext(ctx, d)
	}}
	client, _, url, _ := newClient(t, opts, h)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	_, err = client.Do(req)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, h.hits)
}

func TestTransportLogsNoSecrets(t *testing.T) {
	var logs bytes.Buffer
	h := &scripted{steps: []func(http.ResponseWriter, *http.Request){status(502)}}
	client, _, url, _ := newClient(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, h)
	req, err := http.NewRequest(http.MethodGet, url+"/repos/o/r?access_token=qs-secret", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer header-secret")
	resp, err := client.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Contains(t, logs.String(), "retrying request")
	assert.Contains(t, logs.String(), "/repos/o/r")
	assert.NotContains(t, logs.String(), "qs-secret")
	assert.NotContains(t, logs.String(), "header-secret")
}

func TestRetryAfterAndResetParsing(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	d, ok := RetryAfter(h, now)
	require.True(t, ok)
	assert.Equal(t, 90*time.Second, d)

	h.Set("Retry-After", "soon")
	_, ok = RetryAfter(h, now)
	assert.False(t, ok)

	for _, v := range []string{"1893553445", "2030-01-02T03:04:05Z", "2030-01-02T03:04Z"} {
		h.Set("X-RateLimit-Reset", v)
		at, ok := ResetTime(h, now)
		require.True(t, ok, v)
		assert.WithinDuration(t, now, at, 5*time.Second, v)
	}
	h.Set("X-RateLimit-Reset", "never")
	_, ok = ResetTime(h, now)
	assert.False(t, ok)
}
