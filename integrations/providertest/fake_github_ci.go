package providertest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// ActionsApp is the app slug of a check run GitHub Actions reports: its id
// is the workflow job's id.
const ActionsApp = "github-actions"

// CheckRunDetail is what a check run says about itself: the app that
// reported it, its output, its annotations and, for a GitHub Actions job,
// its log.
type CheckRunDetail struct {
	App                  string
	Title, Summary, Text string
	Annotations          []integrations.Annotation
	Log                  string
}

// ciAccess is how the fake answers the Actions routes: as for a token
// without the Actions permission (deny), with logs past their retention
// (expired), or from a log store that ignores range requests (fullLogs).
type ciAccess struct {
	deny, expired, fullLogs bool
}

// DenyActions answers the Actions routes as GitHub answers a fine-grained
// token without "Actions: read": 403.
func (s *Server) DenyActions(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flowState().access.deny = on
}

// ExpireLogs answers job logs as GitHub answers them once they are past
// their retention: 410 Gone.
func (s *Server) ExpireLogs(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flowState().access.expired = on
}

// IgnoreLogRanges makes the log store answer a range request with the
// whole log (200), as a store without range support would.
func (s *Server) IgnoreLogRanges(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flowState().access.fullLogs = on
}

// LogLeaks counts the log downloads that carried an Authorization header:
// the loop must never send its token to the log store's host.
func (s *Server) LogLeaks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flowState().logLeaks
}

// ghCIRoutes registers the check run annotations, the Actions job logs and
// the log store they redirect to.
func (s *Server) ghCIRoutes(mux *http.ServeMux, handle ghHandle) {
	handle("GET /check-runs/{id}/annotations", s.ghAnnotations)
	handle("GET /actions/jobs/{id}/logs", s.ghJobLogs)
	mux.HandleFunc("GET /_blobs/job-logs/{id}", s.blobJobLog)
}

// runByID finds check run id of repo (under s.mu).
func (s *Server) runByID(repo string, id int64) *checkRun {
	for key, runs := range s.flowState().runs {
		if !strings.HasPrefix(key, repo+"@") {
			continue
		}
		for _, r := range runs {
			if r.ID == id {
				return r
			}
		}
	}
	return nil
}

// ghAnnotations serves GET /repos/{o}/{r}/check-runs/{id}/annotations.
func (s *Server) ghAnnotations(w http.ResponseWriter, r *http.Request, repo string) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	run := s.runByID(repo, id)
	var docs []map[string]any
	if run != nil {
		for _, a := range run.Annotations {
			docs = append(docs, map[string]any{"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine,
				"annotation_level": a.Level, "title": nilIfEmpty(a.Title), "message": a.Message, "blob_href": "https://example.invalid/blob"})
		}
	}
	s.mu.Unlock()
	if run == nil {
		s.ghError(w, r, http.StatusNotFound, "Not Found", nil)
		return
	}
	s.ghPage(w, r, docs)
}

// ghJobLogs serves GET /repos/{o}/{r}/actions/jobs/{id}/logs as GitHub
// does: 302 to a short-lived URL of the log store, which takes no token.
func (s *Server) ghJobLogs(w http.ResponseWriter, r *http.Request, repo string) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	run, access := s.runByID(repo, id), s.flowState().access
	s.mu.Unlock()
	switch {
	case access.deny:
		s.ghError(w, r, http.StatusForbidden, "Resource not accessible by personal access token", nil)
	case run == nil || run.App != ActionsApp:
		s.ghError(w, r, http.StatusNotFound, "Not Found", nil)
	case access.expired:
		s.ghError(w, r, http.StatusGone, "Gone", nil)
	default:
		s.ghRate(w, true)
		w.Header().Set("Location", fmt.Sprintf("%s/_blobs/job-logs/%d?sv=2025-01-01&sig=fake%%2Bsignature", s.srv.URL, id))
		w.WriteHeader(http.StatusFound)
	}
}

// blobJobLog serves a job log from the fake log store. Like a store
// addressed by a signed URL, it refuses a request that also carries an
// Authorization header (and counts it: the token must never go there).
// It answers a suffix range (bytes=-N) with 206.
func (s *Server) blobJobLog(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	var run *checkRun
	for _, runs := range s.flowState().runs {
		for _, rr := range runs {
			if rr.ID == id {
				run = rr
			}
		}
	}
	full := s.flowState().access.fullLogs
	if r.Header.Get("Authorization") != "" {
		s.flowState().logLeaks++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="utf-8"?><Error><Code>InvalidAuthenticationInfo</Code></Error>`))
		return
	}
	s.mu.Unlock()
	if run == nil || r.URL.Query().Get("sig") == "" {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	body := run.Log
	w.Header().Set("Content-Type", "text/plain")
	if n, ok := suffixRange(r.Header.Get("Range")); ok && !full && n < len(body) {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", len(body)-n, len(body)-1, len(body)))
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write([]byte(body[len(body)-n:]))
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(body))
}

// suffixRange reads "bytes=-N".
func suffixRange(h string) (int, bool) {
	rest, ok := strings.CutPrefix(h, "bytes=-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}
