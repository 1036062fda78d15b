package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// An HTTP answer's structured content is written from its bytes too.
// mcp-go encodes a tool result with json.Encoder, and a result is a
// json.Marshaler: whatever the structured content is, encoding/json
// validates and compacts it again at each Marshaler around it, and that
// dominated a check call over HTTP. So a request's tool results hand
// mcp-go a short stand-in (a JSON string no client or tool can know: a
// secret drawn when the process starts and a counter), and the response
// writer puts each result's bytes in place of its stand-in as mcp-go
// writes the message. mcp-go writes each message with one Write (a JSON
// body, or one event of an SSE stream), so a stand-in is never split
// across two; TestHTTPAnswerIsTheEncodingOfTheValue holds the answer to
// the bytes encoding the value would give.

// spliceSecret is the process's stand-in prefix: unguessable, so no text
// a tool returns can be taken for a stand-in.
var spliceSecret = sync.OnceValue(func() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return `"the-loop:encoded:` + hex.EncodeToString(b[:]) + ":"
})

// spliceSeq numbers stand-ins across the process.
var spliceSeq atomic.Uint64

// splices holds one HTTP request's encoded structured contents until the
// response writer meets their stand-ins.
type splices struct {
	mu      sync.Mutex
	pending []splice
}

// splice is one structured content: the stand-in mcp-go encodes and the
// bytes written in its place.
type splice struct {
	standIn, json []byte
}

// splicesKey carries a request's *splices in its context.
type splicesKey struct{}

// standIn records js as a result's structured content and returns what
// the result carries instead.
func (s *splices) standIn(js []byte) json.RawMessage {
	standIn := strconv.AppendUint([]byte(spliceSecret()), spliceSeq.Add(1), 10)
	standIn = append(standIn, '"')
	s.mu.Lock()
	s.pending = append(s.pending, splice{standIn: standIn, json: js})
	s.mu.Unlock()
	return standIn
}

// next finds the first pending stand-in in p: where it starts, and the
// bytes to write in its place, which it takes off the pending list; -1 when
// p holds none.
func (s *splices) next(p []byte) (int, splice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, which := -1, -1
	for j, sp := range s.pending {
		if i := bytes.Index(p, sp.standIn); i >= 0 && (at < 0 || i < at) {
			at, which = i, j
		}
	}
	if which < 0 {
		return -1, splice{}
	}
	sp := s.pending[which]
	s.pending = append(s.pending[:which], s.pending[which+1:]...)
	return at, sp
}

// left is how many stand-ins were never written.
func (s *splices) left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// splicingWriter writes a response, each stand-in replaced by its bytes.
// A JSON body (one message, written with one Write) is declared with its
// length: held is the status it holds back until that Write, which then
// sends the header with a Content-Length, so the body is not chunked.
type splicingWriter struct {
	http.ResponseWriter
	splices *splices
	held    int // a status not yet sent; 0 when none is held
}

// WriteHeader holds back the status of a JSON body until its one Write
// knows the length; any other status passes at once.
func (w *splicingWriter) WriteHeader(code int) {
	h := w.ResponseWriter.Header()
	if code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified &&
		h.Get("Content-Length") == "" && strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		w.held = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

// release sends a held status, declaring length bytes of body when length
// is not negative.
func (w *splicingWriter) release(length int) {
	if w.held == 0 {
		return
	}
	if length >= 0 {
		w.ResponseWriter.Header().Set("Content-Length", strconv.Itoa(length))
	}
	code := w.held
	w.held = 0
	w.ResponseWriter.WriteHeader(code)
}

// Write writes p with its stand-ins replaced, in pieces (the response's
// own buffer joins them, so nothing is copied twice); it reports len(p)
// written when every piece was.
func (w *splicingWriter) Write(p []byte) (int, error) {
	n := len(p)
	var found []placed
	length := len(p)
	for rest, off := p, 0; ; {
		at, sp := w.splices.next(rest)
		if at < 0 {
			break
		}
		found = append(found, placed{at: off + at, splice: sp})
		length += len(sp.json) - len(sp.standIn)
		off += at + len(sp.standIn)
		rest = rest[at+len(sp.standIn):]
	}
	w.release(length)
	from := 0
	for _, f := range found {
		for _, piece := range [][]byte{p[from:f.at], f.json} {
			if _, err := w.ResponseWriter.Write(piece); err != nil {
				return 0, err
			}
		}
		from = f.at + len(f.standIn)
	}
	if _, err := w.ResponseWriter.Write(p[from:]); err != nil {
		return 0, err
	}
	return n, nil
}

// placed is a stand-in met in a write, at its offset there.
type placed struct {
	at int
	splice
}

// Flush flushes the response (mcp-go streams SSE only through a Flusher).
func (w *splicingWriter) Flush() {
	w.release(-1)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *splicingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// splicing serves POSTs with a splicing writer and the request's splices
// in its context, where the tool middleware finds them (StructuredForm).
func splicing(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		s := &splices{}
		sw := &splicingWriter{ResponseWriter: w, splices: s}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), splicesKey{}, s)))
		sw.release(0) // a JSON status written without a body
		if n := s.left(); n > 0 && r.Context().Err() == nil {
			// Only a change in how mcp-go writes a message gets here (a
			// client that left is never answered): the client got a
			// stand-in for a structured content.
			logger.Error("mcp http: a tool result's structured content was not written in place of its stand-in; the client got the stand-in", "results", n)
		}
	})
}
