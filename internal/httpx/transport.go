package httpx

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxRetries   = 4
	DefaultBaseDelay    = time.Second
	DefaultMaxDelay     = 30 * time.Second
	DefaultMaxWait      = 2 * time.Minute
	DefaultMinLimitWait = time.Minute
	DefaultCacheEntries = 256
	// DefaultAttemptTimeout bounds one attempt: connecting, the headers
	// and the whole body.
	DefaultAttemptTimeout = time.Minute
)

// Options configures a Transport. Zero values take the defaults above.
type Options struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// System names the remote system in log lines ("github", "jira").
	System string
	// MaxRetries is the number of retries after the first attempt. A
	// negative value disables retrying.
	MaxRetries int
	// BaseDelay is the first backoff wait after a 5xx or network failure;
	// each retry doubles it, up to MaxDelay, with jitter.
	BaseDelay time.Duration
	// MaxDelay caps one backoff wait.
	MaxDelay time.Duration
	// MaxWait caps the total time one request may spend waiting across its
	// retries; a rate limit that would outlast it is returned at once.
	MaxWait time.Duration
	// MinLimitWait is the wait after a rate-limit answer that says neither
	// Retry-After nor a reset time (doubled on every further retry).
	MinLimitWait time.Duration
	// Sleep waits d or until ctx ends (a timer when nil; tests inject one).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read reset times (time.Now when nil).
	Now func() time.Time
	// Jitter spreads a backoff wait (uniform in [d/2, d] when nil).
	Jitter func(d time.Duration) time.Duration
	// Conditional selects the GET requests answered from the ETag cache on
	// a 304 (none when nil).
	Conditional func(*http.Request) bool
	// AttemptTimeout bounds one attempt end to end: connecting, the
	// headers and reading the whole body.
	AttemptTimeout time.Duration
	// CacheEntries bounds the in-memory ETag cache (used when Pages is nil).
	CacheEntries int
	// Pages, when set, is where cached pages live instead of memory: a
	// store that outlives the process (the state database).
	Pages PageStore
	// Logger receives one line per retry (method, host, path, status; never
	// headers or query strings).
	Logger *slog.Logger
}

// Stats counts what a Transport did.
type Stats struct {
	// Sent is the number of requests that reached the network.
	Sent int64
	// Retries is the number of resent requests.
	Retries int64
	// NotModified is the number of 304 answers served from the cache.
	NotModified int64
	// Waited is the total time spent waiting between attempts.
	Waited time.Duration
}

// Transport retries failed requests with bounded exponential backoff and
// jitter, honours primary and secondary rate limits, and serves conditional
// GETs from an ETag cache. It is safe for concurrent use.
type Transport struct {
	o     Options
	cache *etagCache

	sent, retries, notModified, waited atomic.Int64
}

// New returns a Transport with opts, defaults applied.
func New(opts Options) *Transport {
	if opts.Base == nil {
		opts.Base = http.DefaultTransport
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.BaseDelay <= 0 {
		opts.BaseDelay = DefaultBaseDelay
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.MinLimitWait <= 0 {
		opts.MinLimitWait = DefaultMinLimitWait
	}
	if opts.Sleep == nil {
		opts.Sleep = SleepContext
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Jitter == nil {
		opts.Jitter = halfJitter
	}
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = DefaultCacheEntries
	}
	if opts.AttemptTimeout <= 0 {
		opts.AttemptTimeout = DefaultAttemptTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.System == "" {
		opts.System = "http"
	}
	return &Transport{o: opts, cache: newETagCache(opts.CacheEntries)}
}

// SleepContext waits d, returning early with ctx's error when ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// SleepFunc adapts a plain sleep function (as tests inject) to Options.Sleep;
// the context is still honoured before and after the call.
func SleepFunc(sleep func(time.Duration)) func(ctx context.Context, d time.Duration) error {
	if sleep == nil {
		return nil
	}
	return func(ctx context.Context, d time.Duration) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		sleep(d)
		return ctx.Err()
	}
}

// Stats returns the counters so far.
func (t *Transport) Stats() Stats {
	return Stats{
		Sent:        t.sent.Load(),
		Retries:     t.retries.Load(),
		NotModified: t.notModified.Load(),
		Waited:      time.Duration(t.waited.Load()),
	}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		data, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	conditional := req.Method == http.MethodGet && t.o.Conditional != nil &&
		req.Header.Get("If-None-Match") == "" && t.o.Conditional(req)
	if !conditional {
		return t.send(req)
	}
	key := cacheKey(req)
	entry, ok := t.lookup(req.Context(), key)
	if ok {
		req = req.Clone(req.Context())
		req.Header.Set("If-None-Match", entry.etag)
	}
	resp, err := t.send(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && ok:
		drain(resp)
		t.notModified.Add(1)
		if t.o.Pages != nil {
			if err := t.o.Pages.TouchPage(req.Context(), key); err != nil {
				t.o.Logger.Warn("could not mark a cached page as used", "system", t.o.System, "path", req.URL.Path, "err", err)
			}
		}
		return entry.response(req, resp.Header), nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		if t.o.Pages != nil {
			return t.persist(req, key, resp)
		}
		return t.cache.store(key, resp)
	}
	return resp, nil
}

// lookup finds the cached page of key: in the page store when there is
// one (a failing store is a miss, never an error), else in memory.
func (t *Transport) lookup(ctx context.Context, key string) (*cachedPage, bool) {
	if t.o.Pages == nil {
		return t.cache.get(key)
	}
	p, found, err := t.o.Pages.LoadPage(ctx, key)
	if err != nil {
		t.o.Logger.Warn("could not read a cached page; sending the request unconditionally", "system", t.o.System, "err", err)
		return nil, false
	}
	if !found || p.ETag == "" {
		return nil, false
	}
	return &cachedPage{key: key, etag: p.ETag, header: p.Header, body: p.Body}, true
}

// persist reads resp's body, saves it in the page store, and returns an
// equivalent response whose body can still be read.
func (t *Transport) persist(req *http.Request, key string, resp *http.Response) (*http.Response, error) {
	data, cacheable, err := readCacheable(resp)
	if err != nil {
		return nil, err
	}
	if !cacheable {
		return resp, nil
	}
	page := Page{ETag: resp.Header.Get("ETag"), Header: cacheableHeader(resp.Header), Body: data}
	if err := t.o.Pages.SavePage(req.Context(), key, page); err != nil {
		t.o.Logger.Warn("could not save a cached page; the next request is unconditional", "system", t.o.System, "path", req.URL.Path, "err", err)
	}
	return resp, nil
}

// send performs req with the retry policy.
func (t *Transport) send(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, t.o.AttemptTimeout)
		r := req.Clone(actx)
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				cancel()
				return nil, fmt.Errorf("replay request body: %w", err)
			}
			r.Body = body
		}
		resp, err := t.o.Base.RoundTrip(r)
		t.sent.Add(1)
		if err == nil {
			resp.Body = &boundedBody{ReadCloser: resp.Body, ctx: actx, cancel: cancel, limit: t.o.AttemptTimeout}
		} else {
			cancel()
			if ctx.Err() == nil && actx.Err() != nil {
				err = attemptTimeoutError(t.o.AttemptTimeout, err)
			}
		}
		var d decision
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !idempotent(req) {
				return nil, err
			}
			d = decision{retry: true, reason: "network error", wait: t.backoff(attempt)}
		} else {
			d = t.classify(resp, attempt)
			if d.retry && !idempotent(req) && !d.notProcessed {
				d.retry = false
			}
		}
		if !d.retry || attempt >= t.o.MaxRetries || waited+d.wait > t.o.MaxWait {
			if err != nil {
				return nil, err
			}
			return resp, nil
		}
		status := 0
		if resp != nil {
			status = resp.StatusCode
			drain(resp)
		}
		t.o.Logger.Warn("retrying request",
			"system", t.o.System, "method", req.Method, "host", req.URL.Host, "path", req.URL.Path,
			"status", status, "reason", d.reason, "wait", d.wait, "attempt", attempt+1)
		if err := t.o.Sleep(ctx, d.wait); err != nil {
			return nil, err
		}
		waited += d.wait
		t.waited.Add(int64(d.wait))
		t.retries.Add(1)
	}
}

// decision is what classify concluded about one response.
type decision struct {
	retry bool
	// notProcessed is true when the server said it did not act on the
	// request (rate limits, 503), so even a POST may be resent.
	notProcessed bool
	wait         time.Duration
	reason       string
}

// headerTimeout bounds the wait for a response's headers on the default
// base transport (each attempt is bounded end to end separately).
const headerTimeout = 30 * time.Second

// BaseRoundTripper is client's transport when it has one (tests), else a
// clone of http.DefaultTransport whose dial and header wait are bounded:
// the base every provider's Transport sends through.
func BaseRoundTripper(client *http.Client) http.RoundTripper {
	if client != nil && client.Transport != nil {
		return client.Transport
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = headerTimeout
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// ClientOptions are what a ticket-system provider's caller sets of its
// HTTP client; the GitHub and Jira providers' options embed them.
type ClientOptions struct {
	// HTTPClient supplies the underlying transport (only its Transport is
	// used; retries and timeouts are the provider's own).
	HTTPClient *http.Client
	// Sleep replaces waiting between retries (tests record the waits).
	Sleep func(time.Duration)
	// MaxRetries is the number of retries per request (default 4; negative
	// disables retrying).
	MaxRetries int
	// MaxWait caps the total wait of one request (default 2m).
	MaxWait time.Duration
	// RequestTimeout bounds one attempt end to end, body included
	// (default 1m; integrations.requestTimeoutSeconds).
	RequestTimeout time.Duration
	// Pages keeps conditional-request answers across processes (the state
	// store); nil keeps them in memory for the provider's lifetime.
	Pages PageStore
	// CacheEntries bounds the answers kept in memory when Pages is nil
	// (default DefaultCacheEntries).
	CacheEntries int
	// Logger receives retry lines (never a credential); nil is
	// slog.Default().
	Logger *slog.Logger
}

// Transport builds the provider's retrying transport for system from o:
// conditional says which requests may be answered from the page cache.
func (o ClientOptions) Transport(system string, conditional func(*http.Request) bool) *Transport {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return New(Options{
		Base:           BaseRoundTripper(o.HTTPClient),
		System:         system,
		MaxRetries:     o.MaxRetries,
		AttemptTimeout: o.RequestTimeout,
		Pages:          o.Pages,
		CacheEntries:   o.CacheEntries,
		MaxWait:        o.MaxWait,
		Sleep:          SleepFunc(o.Sleep),
		Logger:         logger,
		Conditional:    conditional,
	})
}
