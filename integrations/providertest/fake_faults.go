package providertest

import (
	"net/http"
	"time"
)

// SetPageSize caps the page size the fake serves (the server's own maximum).
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// FailNext answers the next n requests with status (a 5xx storm).
func (s *Server) FailNext(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.queue = append(s.queue, canned{status: status, body: `{"message":"upstream failure"}`})
	}
}

// MalformNext answers the next n requests with a 200 whose JSON body is cut
// short: a tracker (or a proxy in front of it) that sends half an answer.
func (s *Server) MalformNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.queue = append(s.queue, canned{status: http.StatusOK, body: `[{"id": 1, "body": "cut sho`})
	}
}

// TrickleNext answers the next n requests with a 200 whose headers arrive
// at once and whose body then trickles in one byte at a time and never
// ends: a slow or stuck tracker.
func (s *Server) TrickleNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.queue = append(s.queue, canned{status: http.StatusOK, trickle: true})
	}
}

func trickleBody(w http.ResponseWriter, r *http.Request) {
	_, _ = w.Write([]byte("["))
	flusher, _ := w.(http.Flusher)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
		}
	}
}

// RejectNext makes the next create or edit fail validation on field.
func (s *Server) RejectNext(field, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject = &[2]string{field, message}
}

// EchoCredentials makes every error body repeat the Authorization header the
// fake received, as a hostile or buggy server might.
func (s *Server) EchoCredentials(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.echo = on
}
