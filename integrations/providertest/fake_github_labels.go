package providertest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

func (s *Server) ghLabelsJSON(repo string, names []string) []map[string]any {
	out := []map[string]any{}
	for _, l := range names {
		out = append(out, map[string]any{"name": l, "color": s.labelDefs[repo][l]})
	}
	return out
}

func (s *Server) ghAddLabels(w http.ResponseWriter, r *http.Request, repo string) {
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
		return
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		var obj struct {
			Labels []string `json:"labels"`
		}
		if json.Unmarshal(raw, &obj) != nil {
			s.ghError(w, r, 422, "Invalid request.", nil)
			return
		}
		names = obj.Labels
	}
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	var doc []map[string]any
	if ok {
		is.Labels = addLabels(is.Labels, names...)
		s.touch(is.Key)
		if s.labelDefs[repo] == nil {
			s.labelDefs[repo] = map[string]string{}
		}
		for _, n := range names {
			if _, def := s.labelDefs[repo][n]; !def {
				s.labelDefs[repo][n] = "ededed"
			}
		}
		doc = s.ghLabelsJSON(repo, is.Labels)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, doc)
}

func (s *Server) ghRemoveLabel(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	removed := false
	var doc []map[string]any
	if ok {
		is.Labels, removed = removeLabel(is.Labels, r.PathValue("name"))
		if removed {
			s.touch(is.Key)
		}
		doc = s.ghLabelsJSON(repo, is.Labels)
	}
	s.mu.Unlock()
	switch {
	case !ok:
		s.ghError(w, r, 404, "Not Found", nil)
	case !removed:
		s.ghError(w, r, 404, "Label does not exist", nil)
	default:
		s.ghOK(w, 200, doc)
	}
}

func (s *Server) ghGetLabel(w http.ResponseWriter, r *http.Request, repo string) {
	name := r.PathValue("name")
	s.mu.Lock()
	color, ok := s.labelDefs[repo][name]
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, map[string]any{"name": name, "color": color})
}

func (s *Server) ghCreateLabel(w http.ResponseWriter, r *http.Request, repo string) {
	var in struct {
		Name, Color, Description string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" {
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "Label", "field": "name", "code": "missing_field"}})
		return
	}
	s.mu.Lock()
	if s.labelDefs[repo] == nil {
		s.labelDefs[repo] = map[string]string{}
	}
	_, exists := s.labelDefs[repo][in.Name]
	if !exists {
		s.labelDefs[repo][in.Name] = in.Color
		s.labelCreate++
	}
	s.mu.Unlock()
	if exists {
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "Label", "field": "name", "code": "already_exists"}})
		return
	}
	s.ghOK(w, 201, map[string]any{"name": in.Name, "color": in.Color, "description": in.Description})
}

// LabelDefinitions returns the labels defined in repo (name -> color) and
// how many the fake has created through the API.
func (s *Server) LabelDefinitions(repo string) (map[string]string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.labelDefs[repo] {
		out[k] = v
	}
	return out, s.labelCreate
}

var ghReactions = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

func (s *Server) ghReactionContent(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Content string `json:"content"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !slices.Contains(ghReactions, in.Content) {
		s.ghError(w, r, 422, "Validation Failed", []map[string]string{{"resource": "Reaction", "field": "content", "code": "invalid"}})
		return "", false
	}
	return in.Content, true
}

func (s *Server) ghIssueReaction(w http.ResponseWriter, r *http.Request, repo string) {
	content, ok := s.ghReactionContent(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	is, found := s.ghIssue(repo, r)
	if found {
		is.Reactions = append(is.Reactions, content)
	}
	s.mu.Unlock()
	if !found {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 201, map[string]any{"id": 1, "content": content, "user": ghUser(s.bot)})
}

func (s *Server) ghCommentReaction(w http.ResponseWriter, r *http.Request, repo string) {
	content, ok := s.ghReactionContent(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	c, _, found := s.ghComment(repo, r)
	if found {
		c.Reactions = append(c.Reactions, content)
	}
	s.mu.Unlock()
	if !found {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 201, map[string]any{"id": 2, "content": content, "user": ghUser(s.bot)})
}

func (s *Server) ghGetContents(w http.ResponseWriter, r *http.Request, repo string) {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	path := r.PathValue("path")
	s.mu.Lock()
	content, ok := s.files[repo+"@"+ref+":"+path]
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	enc := base64.StdEncoding.EncodeToString([]byte(content))
	name := path[strings.LastIndex(path, "/")+1:]
	s.ghOK(w, 200, map[string]any{"type": "file", "encoding": "base64", "size": len(content), "name": name, "path": path, "content": enc + "\n", "sha": etagOf(content)})
}

// SeedFile stores a file at ref in repo.
func (s *Server) SeedFile(repo, ref, path, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[repo+"@"+ref+":"+path] = content
}
