package providertest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// jqlPattern is the only JQL shape the fake understands: the open-issues
// query of a project, optionally with one label.
var jqlPattern = lazyre.New(`^project = "([A-Z][A-Z0-9_]+)" AND statusCategory != Done(?: AND labels = "([^"]+)")? ORDER BY created DESC$`)

// jiraSearchHits runs the query under s.mu, newest first.
func (s *Server) jiraSearchHits(jql string) ([]map[string]any, bool) {
	if hits, ok := s.jiraChildHits(jql); ok {
		return hits, true
	}
	m := jqlPattern().FindStringSubmatch(jql)
	if m == nil {
		return nil, false
	}
	project, label := m[1], m[2]
	var hits []map[string]any
	for n := s.nextNumber[project]; n >= 1; n-- {
		is, ok := s.issues[fmt.Sprintf("%s-%d", project, n)]
		if !ok || is.State == "Done" || (label != "" && !slices.Contains(is.Labels, label)) {
			continue
		}
		hits = append(hits, map[string]any{
			"id": strconv.Itoa(10000 + n), "key": is.Key,
			"fields": map[string]any{
				"summary": is.Title, "description": is.Body, "labels": slices.Clone(is.Labels),
				"status": map[string]any{"name": is.State}, "reporter": s.jiraUser(is.Author),
			},
		})
	}
	return hits, true
}

// jiraSearch serves Data Center's GET /rest/api/2/search (startAt, total).
func (s *Server) jiraSearch(w http.ResponseWriter, r *http.Request) {
	if s.auth == "cloud" {
		s.jiraError(w, r, http.StatusGone, []string{"The requested API has been removed. Please migrate to the /rest/api/2/search/jql API."}, nil)
		return
	}
	q := r.URL.Query()
	hits, size, ok := s.jiraSearchPage(w, r)
	if !ok {
		return
	}
	startAt := 0
	if n, err := strconv.Atoi(q.Get("startAt")); err == nil && n > 0 {
		startAt = n
	}
	maxResults := min(atoiOr(q.Get("maxResults"), 50), size)
	page := []map[string]any{}
	for i := startAt; i < min(startAt+maxResults, len(hits)); i++ {
		page = append(page, hits[i])
	}
	writeJSON(w, 200, map[string]any{"startAt": startAt, "maxResults": maxResults, "total": len(hits), "issues": page})
}

// jiraSearchJQL serves Cloud's GET /rest/api/2/search/jql (nextPageToken,
// isLast; no total).
func (s *Server) jiraSearchJQL(w http.ResponseWriter, r *http.Request) {
	if s.auth == "datacenter" {
		s.jiraError(w, r, http.StatusNotFound, []string{"null for uri: " + r.URL.Path}, nil)
		return
	}
	q := r.URL.Query()
	hits, size, ok := s.jiraSearchPage(w, r)
	if !ok {
		return
	}
	start := 0
	if tok := q.Get("nextPageToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "tok-"))
		if err != nil || !strings.HasPrefix(tok, "tok-") {
			s.jiraError(w, r, 400, []string{"Invalid nextPageToken."}, nil)
			return
		}
		start = n
	}
	maxResults := min(atoiOr(q.Get("maxResults"), 50), size)
	page := []map[string]any{}
	for i := start; i < min(start+maxResults, len(hits)); i++ {
		page = append(page, hits[i])
	}
	doc := map[string]any{"issues": page, "isLast": start+len(page) >= len(hits)}
	if start+len(page) < len(hits) {
		doc["nextPageToken"] = fmt.Sprintf("tok-%d", start+len(page))
	}
	writeJSON(w, 200, doc)
}

// jiraSearchPage runs the request's JQL: the hits and the fake's page
// size, or Jira's 400 for a query the fake cannot read (ok false).
func (s *Server) jiraSearchPage(w http.ResponseWriter, r *http.Request) (hits []map[string]any, size int, ok bool) {
	jql := r.URL.Query().Get("jql")
	s.mu.Lock()
	hits, ok = s.jiraSearchHits(jql)
	size = s.pageSize
	s.mu.Unlock()
	if !ok {
		s.jiraError(w, r, 400, []string{"Error in the JQL Query: " + jql}, nil)
	}
	return hits, size, ok
}
