package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// pull is a stored pull request. Its head SHA is read live from the head
// branch, so a push (PushBranch) moves it.
type pull struct {
	Number         int
	Title, Body    string
	Head, Base     string
	Draft          bool
	State          string // open or closed
	Merged         bool
	MergedAt       time.Time
	MergedBy       string
	Mergeable      *bool
	MergeableState string
	Author         string
	Created        time.Time
	Updated        time.Time
	Files          []string
	issue          *Issue // the conversation side: comments and labels
	reviews        []*review
	reviewComments []*reviewComment
}

// flowStore is the fake's state beyond issues and pull requests: commit
// statuses and check runs per repo@sha, the GraphQL budget, and Jira
// remote links per issue key.
type flowStore struct {
	statuses map[string][]*commitStatus
	runs     map[string][]*checkRun
	gqlQuota int
	gqlLimit *time.Duration // answer the next query with RATE_LIMITED, reset this far
	links    map[string][]*RemoteLink
	// access is how the Actions routes answer; logLeaks counts log
	// downloads that carried a token (fake_github_ci.go).
	access   ciAccess
	logLeaks int
	// raceCreate opens a pull request from [0] into [1] just before the
	// next create is handled, as a concurrent writer would.
	raceCreate *[2]string
}

// flowState returns the store, creating it on first use (under s.mu).
func (s *Server) flowState() *flowStore {
	if s.flow == nil {
		s.flow = &flowStore{statuses: map[string][]*commitStatus{}, runs: map[string][]*checkRun{}, gqlQuota: 5000, links: map[string][]*RemoteLink{}}
	}
	return s.flow
}

// stamp is the fake's clock: every call is one minute later (under s.mu).
func (s *Server) stamp() time.Time {
	s.nextID++
	return s.at(s.nextID, time.Minute)
}

type ghHandle = func(pattern string, h func(w http.ResponseWriter, r *http.Request, repo string))

// ghPullRoutes registers the pull request, review, check and GraphQL
// routes beside the ones githubMux declares itself.
func (s *Server) ghPullRoutes(mux *http.ServeMux, handle ghHandle) {
	handle("GET /pulls", s.ghListPulls)
	handle("GET /pulls/{number}/files", s.ghListPullFiles)
	handle("GET /pulls/{number}/reviews", s.ghListReviews)
	handle("GET /pulls/{number}/comments", s.ghListReviewComments)
	handle("GET /commits/{ref}/status", s.ghCombinedStatus)
	handle("GET /commits/{ref}/check-runs", s.ghCheckRuns)
	s.ghCIRoutes(mux, handle)
	mux.HandleFunc("POST /api/graphql", s.ghGraphQL)
	mux.HandleFunc("POST /graphql", s.ghGraphQL)
}

// pullUpdated is when anything on the pull request last changed, its
// conversation included (under s.mu).
func (s *Server) pullUpdated(p *pull) time.Time {
	at := p.Updated
	for _, c := range s.comments[p.issue.Key] {
		if c.Updated.After(at) {
			at = c.Updated
		}
	}
	return at
}

// ghPullJSON is a pull request as GitHub lists it (under s.mu).
func (s *Server) ghPullJSON(repo string, p *pull) map[string]any {
	owner := repo[:strings.Index(repo, "/")]
	doc := map[string]any{
		"number": p.Number, "node_id": fmt.Sprintf("PR_%d", p.Number), "state": p.State, "title": p.Title, "body": p.Body, "draft": p.Draft,
		"html_url":   fmt.Sprintf("%s/pull/%d", s.web(repo), p.Number),
		"head":       map[string]any{"ref": p.Head, "label": owner + ":" + p.Head, "sha": s.refs[repo+" refs/heads/"+p.Head], "repo": map[string]any{"full_name": repo}},
		"base":       map[string]any{"ref": p.Base, "label": owner + ":" + p.Base, "sha": s.refs[repo+" refs/heads/"+p.Base], "repo": map[string]any{"full_name": repo}},
		"user":       ghUser(p.Author),
		"created_at": p.Created.Format(time.RFC3339),
		"updated_at": s.pullUpdated(p).Format(time.RFC3339),
		"merged_at":  nil,
	}
	if p.Merged {
		doc["merged_at"] = p.MergedAt.Format(time.RFC3339)
	}
	return doc
}

// ghPullDetailJSON adds what GitHub computes only for a single pull
// request: merged, mergeable, mergeable_state (under s.mu).
func (s *Server) ghPullDetailJSON(repo string, p *pull) map[string]any {
	doc := s.ghPullJSON(repo, p)
	doc["merged"] = p.Merged
	doc["merged_by"] = nil
	if p.Merged && p.MergedBy != "" {
		doc["merged_by"] = ghUser(p.MergedBy)
	}
	doc["mergeable"] = nil
	if p.Mergeable != nil {
		doc["mergeable"] = *p.Mergeable
	}
	doc["mergeable_state"] = p.MergeableState
	return doc
}

func (s *Server) ghCreatePull(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
		return
	}
	if s.ghRejected(w, r, "PullRequest") {
		return
	}
	head := in.Head
	if _, b, ok := strings.Cut(head, ":"); ok {
		head = b
	}
	s.raceBeforeCreate(repo)
	s.mu.Lock()
	_, hasHead := s.refs[repo+" refs/heads/"+head]
	_, hasBase := s.refs[repo+" refs/heads/"+in.Base]
	var doc map[string]any
	duplicate := 0
	for _, p := range s.pulls {
		if strings.HasPrefix(p.issue.Key, repo+"#") && p.State == "open" && p.Head == head && p.Base == in.Base {
			duplicate = p.Number
		}
	}
	if hasHead && hasBase && duplicate == 0 {
		s.nextNumber[repo]++
		n := s.nextNumber[repo]
		at := s.stamp()
		yes := true
		key := fmt.Sprintf("%s#%d", repo, n)
		p := &pull{Number: n, Title: in.Title, Body: in.Body, Head: head, Base: in.Base, Draft: in.Draft, State: "open",
			Mergeable: &yes, MergeableState: "clean", Author: s.bot, Created: at, Updated: at,
			issue: &Issue{Key: key, Number: n, Title: in.Title, Body: in.Body, State: "open", Author: s.bot}}
		s.pulls[key] = p
		doc = s.ghPullDetailJSON(repo, p)
	}
	s.mu.Unlock()
	switch {
	case duplicate != 0:
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "PullRequest", "code": "custom",
			"message": fmt.Sprintf("A pull request already exists for %s:%s.", repo[:strings.Index(repo, "/")], head)}})
	case doc == nil:
		field := "head"
		if hasHead {
			field = "base"
		}
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "PullRequest", "field": field, "code": "invalid"}})
	default:
		s.ghOK(w, 201, doc)
	}
}

// ghGetPull serves one pull request with an ETag; a matching
// If-None-Match is a free 304.
func (s *Server) ghGetPull(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	p, ok := s.pulls[repo+"#"+r.PathValue("number")]
	var doc map[string]any
	if ok {
		doc = s.ghPullDetailJSON(repo, p)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghDoc(w, r, doc)
}

func (s *Server) ghEditPull(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Body  *string `json:"body"`
		Title *string `json:"title"`
		State *string `json:"state"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "PullRequest", "field": "state", "code": "invalid"}})
		return
	}
	s.mu.Lock()
	p, ok := s.pulls[repo+"#"+r.PathValue("number")]
	var doc map[string]any
	if ok {
		if in.Body != nil {
			p.Body = *in.Body
		}
		if in.Title != nil {
			p.Title = *in.Title
		}
		if in.State != nil && !p.Merged {
			p.State = *in.State
			p.issue.State = *in.State
		}
		p.Updated = s.stamp()
		doc = s.ghPullDetailJSON(repo, p)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, doc)
}

// ghListPulls serves GET /repos/{o}/{r}/pulls: state (open by default,
// closed, all), head (OWNER:BRANCH; GitHub ignores another shape), base,
// sort (created by default, updated) and direction (desc by default).
func (s *Server) ghListPulls(w http.ResponseWriter, r *http.Request, repo string) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	owner := repo[:strings.Index(repo, "/")]
	headOwner, headBranch, byHead := strings.Cut(q.Get("head"), ":")
	base := q.Get("base")
	s.mu.Lock()
	if _, ok := s.nextNumber[repo]; !ok {
		s.mu.Unlock()
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	var picked []*pull
	for key, p := range s.pulls {
		switch {
		case !strings.HasPrefix(key, repo+"#"):
		case state != "all" && p.State != state:
		case byHead && (!strings.EqualFold(headOwner, owner) || p.Head != headBranch):
		case base != "" && p.Base != base:
		default:
			picked = append(picked, p)
		}
	}
	byUpdated := q.Get("sort") == "updated"
	asc := q.Get("direction") == "asc"
	sort.Slice(picked, func(i, j int) bool {
		a, b := picked[i].Number, picked[j].Number
		if byUpdated {
			ua, ub := s.pullUpdated(picked[i]), s.pullUpdated(picked[j])
			if !ua.Equal(ub) {
				return ua.Before(ub) == asc
			}
		}
		return (a < b) == asc
	})
	docs := make([]map[string]any, 0, len(picked))
	for _, p := range picked {
		docs = append(docs, s.ghPullJSON(repo, p))
	}
	s.mu.Unlock()
	s.ghPage(w, r, docs)
}

func (s *Server) ghListPullFiles(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	p, ok := s.pulls[repo+"#"+r.PathValue("number")]
	var docs []map[string]any
	if ok {
		for _, f := range p.Files {
			docs = append(docs, map[string]any{"filename": f, "status": "modified", "sha": etagOf(f)})
		}
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghPage(w, r, docs)
}
