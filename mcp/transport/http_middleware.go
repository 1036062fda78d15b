package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
)

// refusalCode is the JSON-RPC error code carried by transport refusals
// (401, 403, 413, 503); the body has no id, as the spec allows.
const refusalCode = -32001

// writeRefusal writes a JSON-RPC error body with the HTTP status.
func writeRefusal(w http.ResponseWriter, status int, message string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": refusalCode, "message": message},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// closeIfBody asks the server to close the connection after a refusal of
// a request that carries a body, so the unread body is never drained.
func closeIfBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		w.Header().Set("Connection", "close")
	}
}

// bodyLimit reads the whole request body up to max bytes and answers 413
// beyond it, so nothing behind it reads an unbounded body.
func bodyLimit(max int64, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tooLarge := func() {
			closeIfBody(w, r)
			logger.Warn("mcp http: request body too large", "limit", max, "remote", r.RemoteAddr)
			writeRefusal(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes (mcp.http.maxBodyBytes)", max))
		}
		if r.ContentLength > max {
			tooLarge()
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			data, err := io.ReadAll(io.LimitReader(r.Body, max+1))
			if err != nil {
				writeRefusal(w, http.StatusBadRequest, "could not read the request body")
				return
			}
			if int64(len(data)) > max {
				tooLarge()
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(data))
		}
		next.ServeHTTP(w, r)
	})
}

// originPolicy is the Origin allow-list that protects against DNS
// rebinding: a request without Origin (a non-browser client) passes; a
// request whose Origin is not listed gets 403.
type originPolicy struct {
	allowed map[string]bool
	list    []string
	logger  *slog.Logger
}

func newOriginPolicy(origins []string, logger *slog.Logger) (*originPolicy, error) {
	p := &originPolicy{allowed: map[string]bool{}, logger: logger}
	for _, o := range origins {
		n, err := normalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("mcp.http.allowedOrigins / --allow-origin: %w", err)
		}
		if !p.allowed[n] {
			p.allowed[n] = true
			p.list = append(p.list, n)
		}
	}
	return p, nil
}

func (p *originPolicy) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		if n, err := normalizeOrigin(origin); err == nil && p.allowed[n] {
			next.ServeHTTP(w, r)
			return
		}
		shown := origin
		if len(shown) > 100 {
			shown = shown[:100] + "..."
		}
		p.logger.Warn("mcp http: origin refused", "origin", shown, "remote", r.RemoteAddr)
		closeIfBody(w, r)
		writeRefusal(w, http.StatusForbidden, fmt.Sprintf("origin %q is not allowed; add it to mcp.http.allowedOrigins or pass --allow-origin", shown))
	})
}

// normalizeOrigin returns scheme://host[:port] in lower case, refusing
// anything that is not a plain http(s) origin. "*" and "null" are refused:
// either would switch the DNS-rebinding protection off.
func normalizeOrigin(o string) (string, error) {
	o = strings.TrimSpace(o)
	if o == "*" || o == "null" {
		return "", fmt.Errorf("origin %q is not accepted: list each origin, like https://app.example.com", o)
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("%q is not an origin like https://app.example.com", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
