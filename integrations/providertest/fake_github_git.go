package providertest

import (
	"encoding/json"
	"net/http"
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

// SeedBranch makes refs/heads/branch point at sha in repo.
func (s *Server) SeedBranch(repo, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs[repo+" refs/heads/"+branch] = sha
}
