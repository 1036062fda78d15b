package providertest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GraphQLQuotaRemaining is the fake's GraphQL budget (separate from REST's,
// as on GitHub).
func (s *Server) GraphQLQuotaRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flowState().gqlQuota
}

// GraphQLRateLimitedNext answers the next GraphQL query the way GitHub
// answers one over the primary budget: HTTP 200 with a RATE_LIMITED error
// and a reset resetIn from now.
func (s *Server) GraphQLRateLimitedNext(resetIn time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flowState().gqlLimit = &resetIn
}

type gqlRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

type gqlError struct {
	Type       string         `json:"type,omitempty"`
	Path       []string       `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
	Message    string         `json:"message"`
}

// ghGraphQL serves POST /api/graphql (GitHub Enterprise) and POST /graphql
// (github.com). It answers two query shapes: a pull request's reviewThreads
// with variables owner, name, number, first and after, paged by an opaque
// cursor and capped at the fake's page size; and the batched relations read
// (see gqlRelations).
func (s *Server) ghGraphQL(w http.ResponseWriter, r *http.Request) {
	if !s.ghAuthorized(r) {
		s.gqlRate(w, false)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials" + s.echoSuffix(r), "documentation_url": "https://docs.github.com/graphql"})
		return
	}
	var in gqlRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.gqlRate(w, false)
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	s.mu.Lock()
	limit := s.flowState().gqlLimit
	s.flow.gqlLimit = nil
	s.mu.Unlock()
	if limit != nil {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(*limit).Unix(), 10))
		writeJSON(w, http.StatusOK, map[string]any{"errors": []gqlError{{Type: "RATE_LIMITED", Message: "API rate limit exceeded for user ID 1."}}})
		return
	}
	s.gqlRate(w, true)
	if strings.Contains(in.Query, "subIssues") {
		writeJSON(w, http.StatusOK, s.gqlRelations(r, in))
		return
	}
	if !strings.Contains(in.Query, "reviewThreads") {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []gqlError{{Message: "the fake answers only the reviewThreads and relations queries"}}})
		return
	}
	data, errs := s.gqlReviewThreads(r, in.Variables)
	out := map[string]any{"data": data}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) gqlRate(w http.ResponseWriter, spend bool) {
	s.mu.Lock()
	ci := s.flowState()
	if spend && ci.gqlQuota > 0 {
		ci.gqlQuota--
	}
	q := ci.gqlQuota
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(q))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-q))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "graphql")
}

func (s *Server) gqlReviewThreads(r *http.Request, vars map[string]any) (map[string]any, []gqlError) {
	owner, _ := vars["owner"].(string)
	name, _ := vars["name"].(string)
	number, _ := vars["number"].(float64)
	first, _ := vars["first"].(float64)
	after, _ := vars["after"].(string)
	if first < 1 || first > 100 {
		return nil, []gqlError{{Type: "ARGUMENT_LIMIT", Message: fmt.Sprintf("Requesting %v records on the `reviewThreads` connection is outside the `first` limit of 1 to 100 records.", first)}}
	}
	repo := owner + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.nextNumber[repo]; !ok {
		return map[string]any{"repository": nil}, []gqlError{{Type: "NOT_FOUND", Path: []string{"repository"},
			Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s'.%s", repo, s.echoLocked(r))}}
	}
	p, ok := s.pulls[repo+"#"+strconv.Itoa(int(number))]
	if !ok {
		return map[string]any{"repository": map[string]any{"pullRequest": nil}}, []gqlError{{Type: "NOT_FOUND", Path: []string{"repository", "pullRequest"},
			Message: fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.%s", int(number), s.echoLocked(r))}}
	}
	var roots []*reviewComment
	for _, c := range p.reviewComments {
		if c.InReplyTo == 0 {
			roots = append(roots, c)
		}
	}
	start := 0
	if after != "" {
		raw, err := base64.StdEncoding.DecodeString(after)
		n, convErr := strconv.Atoi(strings.TrimPrefix(string(raw), "cursor:"))
		if err != nil || convErr != nil || n < 0 {
			return nil, []gqlError{{Message: fmt.Sprintf("`%s` does not appear to be a valid cursor.", after)}}
		}
		start = n
	}
	end := min(start+min(int(first), s.pageSize), len(roots))
	nodes := []map[string]any{}
	for _, c := range roots[min(start, end):end] {
		var comments []map[string]any
		for _, rc := range p.reviewComments {
			if rc.ID == c.ID || rc.InReplyTo == c.ID {
				comments = append(comments, map[string]any{"databaseId": rc.ID, "url": s.reviewCommentURL(repo, p.Number, rc.ID),
					"body": rc.Body, "createdAt": rc.Created.Format(time.RFC3339), "author": map[string]any{"login": rc.Author}})
			}
		}
		node := map[string]any{
			"id": threadID(c.ID), "isResolved": c.Resolved, "isOutdated": c.Outdated, "path": c.Path,
			"line": c.Line, "originalLine": c.Line,
			"comments": map[string]any{"totalCount": len(comments), "nodes": comments[:min(len(comments), 30)]},
		}
		if c.Outdated {
			node["line"] = nil
		}
		nodes = append(nodes, node)
	}
	cursor := base64.StdEncoding.EncodeToString([]byte("cursor:" + strconv.Itoa(end)))
	return map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"reviewThreads": map[string]any{
		"totalCount": len(roots),
		"pageInfo":   map[string]any{"hasNextPage": end < len(roots), "endCursor": cursor},
		"nodes":      nodes,
	}}}}, nil
}

// echoLocked is echoSuffix for callers already holding s.mu.
func (s *Server) echoLocked(r *http.Request) string {
	if !s.echo {
		return ""
	}
	return " (received Authorization: " + r.Header.Get("Authorization") + ")"
}
