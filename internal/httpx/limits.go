package httpx

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// peekLimit bounds how much of a 403 body is read to recognise a secondary
// rate limit.
const peekLimit = 64 << 10

// classify decides whether resp should be retried and after how long.
func (t *Transport) classify(resp *http.Response, attempt int) decision {
	now := t.o.Now()
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests:
		return t.limitDecision(resp, now, attempt, "rate limited (429)")
	case code == http.StatusForbidden:
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, ok := ResetTime(resp.Header, now); ok {
				return decision{retry: true, notProcessed: true, wait: untilPlusBuffer(reset, now), reason: "primary rate limit"}
			}
		}
		if _, ok := RetryAfter(resp.Header, now); ok {
			return t.limitDecision(resp, now, attempt, "secondary rate limit")
		}
		if bodyMentionsLimit(resp) {
			return decision{retry: true, notProcessed: true, wait: t.limitBackoff(attempt), reason: "secondary rate limit"}
		}
		return decision{}
	case code == http.StatusServiceUnavailable:
		if d, ok := RetryAfter(resp.Header, now); ok {
			return decision{retry: true, notProcessed: true, wait: d, reason: "service unavailable (Retry-After)"}
		}
		return decision{retry: true, notProcessed: true, wait: t.backoff(attempt), reason: "service unavailable"}
	case code == http.StatusInternalServerError, code == http.StatusBadGateway, code == http.StatusGatewayTimeout:
		return decision{retry: true, wait: t.backoff(attempt), reason: "server error " + strconv.Itoa(code)}
	}
	return decision{}
}

func (t *Transport) limitDecision(resp *http.Response, now time.Time, attempt int, reason string) decision {
	if d, ok := RetryAfter(resp.Header, now); ok {
		return decision{retry: true, notProcessed: true, wait: d, reason: reason}
	}
	if reset, ok := ResetTime(resp.Header, now); ok {
		return decision{retry: true, notProcessed: true, wait: untilPlusBuffer(reset, now), reason: reason}
	}
	return decision{retry: true, notProcessed: true, wait: t.limitBackoff(attempt), reason: reason}
}

// untilPlusBuffer is the wait until reset plus one second, because reset
// times have one-second granularity.
func untilPlusBuffer(reset, now time.Time) time.Duration {
	d := reset.Sub(now) + time.Second
	if d < time.Second {
		d = time.Second
	}
	return d
}

// RetryAfter parses a Retry-After header (delay seconds or an HTTP date).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		d := at.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// ResetTime parses X-RateLimit-Reset: UTC epoch seconds (GitHub) or an ISO
// 8601 timestamp (Jira Cloud).
func ResetTime(h http.Header, now time.Time) (time.Time, bool) {
	v := strings.TrimSpace(h.Get("X-RateLimit-Reset"))
	if v == "" {
		return time.Time{}, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs > 0 {
		return time.Unix(secs, 0), true
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04Z"} {
		if at, err := time.Parse(layout, v); err == nil {
			return at, true
		}
	}
	return time.Time{}, false
}

// bodyMentionsLimit reads (and restores) a 403 body and reports whether it
// describes a secondary or abuse rate limit.
func bodyMentionsLimit(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, peekLimit))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), rest), rest}
	if err != nil {
		return false
	}
	lower := strings.ToLower(string(data))
	return strings.Contains(lower, "secondary rate limit") || strings.Contains(lower, "abuse")
}
