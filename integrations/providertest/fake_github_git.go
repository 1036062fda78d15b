package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

func (s *Server) ghRefJSON(repo, ref, sha string) map[string]any {
	return map[string]any{
		"ref": ref, "node_id": "REF_" + ref, "url": s.URL() + "repos/" + repo + "/git/" + ref,
		"object": map[string]any{"type": "commit", "sha": sha, "url": s.URL() + "repos/" + repo + "/git/commits/" + sha},
	}
}

func (s *Server) ghCreateRef(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !strings.HasPrefix(in.Ref, "refs/") || len(in.SHA) != 40 {
		s.ghError(w, r, 422, "Reference update failed", nil)
		return
	}
	s.mu.Lock()
	_, exists := s.refs[repo+" "+in.Ref]
	if !exists {
		s.refs[repo+" "+in.Ref] = in.SHA
	}
	s.mu.Unlock()
	if exists {
		s.ghError(w, r, 422, "Reference already exists", nil)
		return
	}
	s.ghOK(w, 201, s.ghRefJSON(repo, in.Ref, in.SHA))
}

func (s *Server) ghGetRef(w http.ResponseWriter, r *http.Request, repo string) {
	ref := "refs/" + r.PathValue("ref")
	s.mu.Lock()
	sha, ok := s.refs[repo+" "+ref]
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, s.ghRefJSON(repo, ref, sha))
}

// Ref returns the SHA refs/heads/branch points at in repo ("" when absent).
func (s *Server) Ref(repo, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refs[repo+" refs/heads/"+branch]
}

func (s *Server) ghPullJSON(repo string, p *pull) map[string]any {
	return map[string]any{
		"number": p.Number, "state": "open", "title": p.Title, "body": p.Body, "draft": p.Draft,
		"html_url": fmt.Sprintf("%s/pull/%d", s.web(repo), p.Number),
		"head":     map[string]any{"ref": p.Head, "sha": s.refs[repo+" refs/heads/"+p.Head]},
		"base":     map[string]any{"ref": p.Base, "sha": s.refs[repo+" refs/heads/"+p.Base]},
		"user":     ghUser(s.bot),
	}
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
	s.mu.Lock()
	_, hasHead := s.refs[repo+" refs/heads/"+head]
	_, hasBase := s.refs[repo+" refs/heads/"+in.Base]
	var doc map[string]any
	if hasHead && hasBase {
		s.nextNumber[repo]++
		p := &pull{Number: s.nextNumber[repo], Title: in.Title, Body: in.Body, Head: head, Base: in.Base, Draft: in.Draft}
		s.pulls[fmt.Sprintf("%s#%d", repo, p.Number)] = p
		doc = s.ghPullJSON(repo, p)
	}
	s.mu.Unlock()
	if doc == nil {
		field := "head"
		if hasHead {
			field = "base"
		}
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "PullRequest", "field": field, "code": "invalid"}})
		return
	}
	s.ghOK(w, 201, doc)
}

func (s *Server) ghGetPull(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	p, ok := s.pulls[repo+"#"+r.PathValue("number")]
	var doc map[string]any
	if ok {
		doc = s.ghPullJSON(repo, p)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, doc)
}

func (s *Server) ghEditPull(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Body  *string `json:"body"`
		Title *string `json:"title"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
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
		doc = s.ghPullJSON(repo, p)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, doc)
}

// PullBody returns the body of pull request repo#number and whether it exists.
func (s *Server) PullBody(repo string, number int) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[repo+"#"+strconv.Itoa(number)]
	if !ok {
		return "", false
	}
	return p.Body, true
}

// SeedBranch makes refs/heads/branch point at sha in repo.
func (s *Server) SeedBranch(repo, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs[repo+" refs/heads/"+branch] = sha
}
