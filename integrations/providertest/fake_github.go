package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GitHub fake constants: the seeded repository, its default branch head, and
// the Enterprise-style API prefix the fake serves under.
const (
	GitHubRepo    = "octo/widgets"
	GitHubMainSHA = "1111111111111111111111111111111111111111"
	ghPrefix      = "/api/v3"
)

// NewGitHub starts a fake GitHub REST API (served under /api/v3/, as GitHub
// Enterprise Server does) with repository octo/widgets holding issue #1,
// label "bug", branch main and file docs/readme.md. It stops when the test
// ends.
func NewGitHub(t testing.TB) *Server {
	s := StartGitHub()
	t.Cleanup(s.Close)
	return s
}

// StartGitHub is NewGitHub outside a test (the demo, the fake server
// program): it listens on a loopback port until Close.
func StartGitHub() *Server {
	s := newServer("github")
	s.prefix = ghPrefix
	s.issues[GitHubRepo+"#1"] = &Issue{Key: GitHubRepo + "#1", Number: 1, Title: "Seeded ticket", Body: "Seeded body", State: "open", Author: "alice", Labels: []string{"bug"}}
	s.touch(GitHubRepo + "#1")
	s.nextNumber[GitHubRepo] = 1
	s.labelDefs[GitHubRepo] = map[string]string{"bug": "d73a4a"}
	s.refs[GitHubRepo+" refs/heads/main"] = GitHubMainSHA
	s.files[GitHubRepo+"@main:docs/readme.md"] = "hello from the fake\n"
	s.start(s.githubMux())
	return s
}

func (s *Server) githubMux() http.Handler {
	mux := http.NewServeMux()
	r := ghPrefix + "/repos/{owner}/{repo}"
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request, repo string)) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.HandleFunc(method+" "+r+path, func(w http.ResponseWriter, req *http.Request) {
			if !s.ghAuthorized(req) {
				s.ghError(w, req, http.StatusUnauthorized, "Bad credentials", nil)
				return
			}
			if s.QuotaRemaining() == 0 {
				s.ghError(w, req, http.StatusForbidden, "API rate limit exceeded for user ID 1.", nil)
				return
			}
			h(w, req, req.PathValue("owner")+"/"+req.PathValue("repo"))
		})
	}
	handle("GET /issues", s.ghListIssues)
	handle("GET /issues/{number}", s.ghGetIssue)
	handle("POST /issues", s.ghCreateIssue)
	handle("PATCH /issues/{number}", s.ghEditIssue)
	handle("GET /issues/{number}/comments", s.ghListComments)
	handle("POST /issues/{number}/comments", s.ghCreateComment)
	handle("PATCH /issues/comments/{id}", s.ghEditComment)
	handle("POST /issues/{number}/labels", s.ghAddLabels)
	handle("DELETE /issues/{number}/labels/{name}", s.ghRemoveLabel)
	handle("GET /labels/{name}", s.ghGetLabel)
	handle("POST /labels", s.ghCreateLabel)
	handle("POST /issues/{number}/reactions", s.ghIssueReaction)
	handle("POST /issues/comments/{id}/reactions", s.ghCommentReaction)
	handle("POST /git/refs", s.ghCreateRef)
	handle("GET /git/ref/{ref...}", s.ghGetRef)
	handle("POST /pulls", s.ghCreatePull)
	handle("GET /pulls/{number}", s.ghGetPull)
	handle("PATCH /pulls/{number}", s.ghEditPull)
	handle("GET /contents/{path...}", s.ghGetContents)
	s.ghRelationRoutes(handle)
	s.ghPullRoutes(mux, handle)
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		s.ghError(w, req, http.StatusNotFound, "Not Found", nil)
	})
	return mux
}

func (s *Server) ghAuthorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	return h == "Bearer "+s.token || h == "token "+s.token
}

// ghRate sets the X-RateLimit-* headers, spending one unit unless free.
func (s *Server) ghRate(w http.ResponseWriter, spend bool) {
	s.mu.Lock()
	if spend && s.quota > 0 {
		s.quota--
	}
	q := s.quota
	reset := time.Now().Add(s.quotaReset)
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(q))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-q))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
}

func (s *Server) ghOK(w http.ResponseWriter, status int, v any) {
	s.ghRate(w, true)
	writeJSON(w, status, v)
}

func (s *Server) ghError(w http.ResponseWriter, r *http.Request, status int, msg string, errs []map[string]string) {
	s.ghRate(w, true)
	body := map[string]any{"message": msg + s.echoSuffix(r), "documentation_url": "https://docs.github.com/rest"}
	if errs != nil {
		body["errors"] = errs
	}
	writeJSON(w, status, body)
}

// ghRejected answers an injected validation failure, if one is pending.
func (s *Server) ghRejected(w http.ResponseWriter, r *http.Request, resource string) bool {
	s.mu.Lock()
	rej := s.reject
	s.reject = nil
	s.mu.Unlock()
	if rej == nil {
		return false
	}
	s.ghError(w, r, http.StatusUnprocessableEntity, "Validation Failed", []map[string]string{{"resource": resource, "field": rej[0], "code": "custom", "message": rej[1]}})
	return true
}

func (s *Server) web(repo string) string { return s.srv.URL + "/" + repo }

func ghUser(login string) map[string]any {
	return map[string]any{"login": login, "id": len(login), "type": "User"}
}

func (s *Server) ghIssueJSON(repo string, is *Issue) map[string]any {
	labels := []map[string]any{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"name": l, "color": s.labelDefs[repo][l]})
	}
	doc := map[string]any{
		"id": is.Number, "number": is.Number, "title": is.Title, "body": is.Body, "state": is.State,
		"html_url": fmt.Sprintf("%s/issues/%d", s.web(repo), is.Number),
		"user":     ghUser(is.Author), "labels": labels,
		"comments":     len(s.comments[is.Key]),
		"state_reason": nilIfEmpty(is.StateReason), "repository_url": s.URL() + "repos/" + repo,
		"updated_at": is.Updated.Format(time.RFC3339),
	}
	if !s.rel.off { // servers without sub-issues predate the field
		doc["parent_issue_url"] = s.ghParentURL(is.Key)
	}
	return doc
}

func (s *Server) ghCommentJSON(repo string, number int, c *Comment) map[string]any {
	return map[string]any{
		"id": c.ID, "node_id": fmt.Sprintf("IC_%d", c.ID), "body": c.Body,
		"html_url":           fmt.Sprintf("%s/issues/%d#issuecomment-%d", s.web(repo), number, c.ID),
		"user":               ghUser(c.Author),
		"author_association": c.Association,
		"created_at":         c.Created.Format(time.RFC3339),
		"updated_at":         c.Updated.Format(time.RFC3339),
	}
}

// ghIssue looks up the issue of the request's {number} under s.mu.
func (s *Server) ghIssue(repo string, r *http.Request) (*Issue, bool) {
	is, ok := s.issues[repo+"#"+r.PathValue("number")]
	if p, isPull := s.pulls[repo+"#"+r.PathValue("number")]; !ok && isPull {
		return p.issue, true // a pull request is an issue too
	}
	return is, ok
}

func (s *Server) ghGetIssue(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	var doc map[string]any
	if ok {
		doc = s.ghIssueJSON(repo, is)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghDoc(w, r, doc)
}

// ghDoc serves one resource with an ETag; a matching If-None-Match is a
// free 304, as on GitHub.
func (s *Server) ghDoc(w http.ResponseWriter, r *http.Request, doc map[string]any) {
	etag := etagOf(doc)
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		s.ghRate(w, false)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.ghOK(w, 200, doc)
}

func (s *Server) ghCreateIssue(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
		return
	}
	if s.ghRejected(w, r, "Issue") {
		return
	}
	if in.Title == "" {
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "Issue", "field": "title", "code": "missing_field"}})
		return
	}
	s.mu.Lock()
	if _, ok := s.nextNumber[repo]; !ok {
		s.mu.Unlock()
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.nextNumber[repo]++
	n := s.nextNumber[repo]
	is := &Issue{Key: fmt.Sprintf("%s#%d", repo, n), Number: n, Title: in.Title, Body: in.Body, State: "open", Author: s.bot, Labels: addLabels(nil, in.Labels...)}
	s.issues[is.Key] = is
	s.touch(is.Key)
	doc := s.ghIssueJSON(repo, is)
	s.mu.Unlock()
	s.ghOK(w, 201, doc)
}

func (s *Server) ghEditIssue(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
		return
	}
	if s.ghRejected(w, r, "Issue") {
		return
	}
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	var doc map[string]any
	if ok {
		if in.Body != nil {
			is.Body = *in.Body
			s.touch(is.Key)
		}
		doc = s.ghIssueJSON(repo, is)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, doc)
}

// ghSlice cuts all to the page r asks for, as GitHub does: per_page
// (default 30, at most 100 and the fake's page size) and page (from 1).
func (s *Server) ghSlice(r *http.Request, all []map[string]any) (items []map[string]any, per, page, last int) {
	s.mu.Lock()
	size := s.pageSize
	s.mu.Unlock()
	lo, hi, per, page, last := pageRange(r, len(all), size)
	items = make([]map[string]any, 0, hi-lo)
	items = append(items, all[lo:hi]...)
	return items, per, page, last
}

// pageRange is the [lo, hi) of n items that the page r asks for holds, at
// most size a page.
func pageRange(r *http.Request, n, size int) (lo, hi, per, page, last int) {
	q := r.URL.Query()
	per = min(atoiOr(q.Get("per_page"), 30), 100, size)
	page = max(atoiOr(q.Get("page"), 1), 1)
	last = max((n+per-1)/per, 1)
	lo = min((page-1)*per, n)
	return lo, min(page*per, n), per, page, last
}

// ghPage serves one page of docs the way GitHub does: per_page (default 30,
// at most 100 and the fake's page size), page, a Link header, an ETag, and
// a free 304 when If-None-Match matches.
func (s *Server) ghPage(w http.ResponseWriter, r *http.Request, all []map[string]any) {
	docs, per, page, last := s.ghSlice(r, all)
	etag := etagOf(docs)
	if r.Header.Get("If-None-Match") == etag {
		s.ghRate(w, false)
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	link := func(p int, rel string) string {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		u.RawQuery = q.Encode()
		return fmt.Sprintf(`<%s%s>; rel="%s"`, s.srv.URL, u.RequestURI(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(page-1, "prev"), link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	w.Header().Set("ETag", etag)
	s.ghOK(w, 200, docs)
}

// ghListIssues serves GET /repos/{o}/{r}/issues: open (or state=all/closed)
// issues and pull requests, newest first, filtered by labels (all must
// match). Pull requests carry a pull_request object, as on GitHub.
func (s *Server) ghListIssues(w http.ResponseWriter, r *http.Request, repo string) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	s.mu.Lock()
	if _, ok := s.nextNumber[repo]; !ok {
		s.mu.Unlock()
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	// Which numbers are listed first, then the documents of the page asked
	// for only: a listing of many issues renders one page, not all.
	var listed []string
	for n := s.nextNumber[repo]; n >= 1; n-- {
		key := repo + "#" + strconv.Itoa(n)
		if _, ok := s.pulls[key]; ok && state != "closed" && len(want) == 0 {
			listed = append(listed, key)
			continue
		}
		is, ok := s.issues[key]
		if !ok || (state != "all" && is.State != state) {
			continue
		}
		match := true
		for _, l := range want {
			match = match && slices.Contains(is.Labels, l)
		}
		if match {
			listed = append(listed, key)
		}
	}
	lo, hi, _, _, _ := pageRange(r, len(listed), s.pageSize)
	docs := make([]map[string]any, len(listed))
	for i := lo; i < hi; i++ {
		key := listed[i]
		if p, ok := s.pulls[key]; ok && state != "closed" && len(want) == 0 {
			doc := s.ghPullJSON(repo, p)
			doc["pull_request"] = map[string]any{"url": s.URL() + "repos/" + repo + "/pulls/" + strconv.Itoa(p.Number)}
			doc["comments"] = len(s.comments[key])
			docs[i] = doc
			continue
		}
		docs[i] = s.ghIssueJSON(repo, s.issues[key])
	}
	s.mu.Unlock()
	s.ghPage(w, r, docs)
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}
