package providertest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"net/http"
	"slices"
	"strconv"
)

// The fake's HTTP plumbing: the request log and faults (middleware), JSON
// answers and their ETags.

// recorder captures the status a handler wrote.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Flush passes a flush through to the connection.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w, status: 200}
		defer func() {
			s.mu.Lock()
			s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, IfNoneMatch: r.Header.Get("If-None-Match"), Status: rec.status})
			s.mu.Unlock()
		}()
		s.mu.Lock()
		var c *canned
		if len(s.queue) > 0 {
			c = &s.queue[0]
			s.queue = s.queue[1:]
		}
		s.mu.Unlock()
		if c != nil {
			for k, v := range c.headers {
				rec.Header().Set(k, v)
			}
			rec.Header().Set("Content-Type", "application/json; charset=utf-8")
			rec.WriteHeader(c.status)
			if c.trickle {
				trickleBody(rec, r)
				return
			}
			_, _ = rec.Write([]byte(c.body))
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// echoSuffix is appended to error messages when EchoCredentials is on.
func (s *Server) echoSuffix(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.echo {
		return ""
	}
	return " (received Authorization: " + r.Header.Get("Authorization") + ")"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func etagOf(v any) string {
	j := jsonHasher{h: sha256.New(), buf: make([]byte, 0, 256)}
	j.value(v)
	var sum [sha256.Size]byte
	return `W/"` + hex.EncodeToString(j.h.Sum(sum[:0])[:8]) + `"`
}

// jsonHasher writes a value to h as its JSON would read, map keys sorted,
// without building the JSON: what the fake's ETags are taken of.
type jsonHasher struct {
	h    hash.Hash
	keys []string // scratch space reused across the maps it walks
	buf  []byte
}

func (j *jsonHasher) write(b []byte) { _, _ = j.h.Write(b) }

func (j *jsonHasher) value(v any) {
	switch v := v.(type) {
	case nil:
		j.write(append(j.buf[:0], "null"...))
	case string:
		j.buf = strconv.AppendQuote(j.buf[:0], v)
		j.write(j.buf)
	case int:
		j.buf = strconv.AppendInt(j.buf[:0], int64(v), 10)
		j.write(j.buf)
	case int64:
		j.buf = strconv.AppendInt(j.buf[:0], v, 10)
		j.write(j.buf)
	case bool:
		j.buf = strconv.AppendBool(j.buf[:0], v)
		j.write(j.buf)
	case map[string]any:
		start := len(j.keys)
		for k := range v {
			j.keys = append(j.keys, k)
		}
		slices.Sort(j.keys[start:])
		end := len(j.keys)
		j.write(append(j.buf[:0], '{'))
		for i := start; i < end; i++ {
			k := j.keys[i]
			j.buf = append(strconv.AppendQuote(j.buf[:0], k), ':')
			j.write(j.buf)
			j.value(v[k])
			j.write(append(j.buf[:0], ','))
		}
		j.write(append(j.buf[:0], '}'))
		j.keys = j.keys[:start]
	case []map[string]any:
		j.write(append(j.buf[:0], '['))
		for _, e := range v {
			j.value(e)
			j.write(append(j.buf[:0], ','))
		}
		j.write(append(j.buf[:0], ']'))
	case []any:
		j.write(append(j.buf[:0], '['))
		for _, e := range v {
			j.value(e)
			j.write(append(j.buf[:0], ','))
		}
		j.write(append(j.buf[:0], ']'))
	default:
		data, _ := json.Marshal(v)
		j.write(data)
	}
}
