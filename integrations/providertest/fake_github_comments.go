package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

func (s *Server) ghListComments(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	if !ok {
		s.mu.Unlock()
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	all := s.comments[is.Key]
	docs := make([]map[string]any, 0, len(all))
	for _, c := range all {
		docs = append(docs, s.ghCommentJSON(repo, is.Number, c))
	}
	s.mu.Unlock()
	s.ghPage(w, r, docs)
}

func (s *Server) ghCreateComment(w http.ResponseWriter, r *http.Request, repo string) {
	in, ok := s.ghCommentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	var doc map[string]any
	if ok {
		c := s.addComment(is.Key, s.bot, "NONE", in.Body)
		doc = s.ghCommentJSON(repo, is.Number, c)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 201, doc)
}

// ghComment finds comment {id} in repo under s.mu.
func (s *Server) ghComment(repo string, r *http.Request) (*Comment, int, bool) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for key, cs := range s.comments {
		if !strings.HasPrefix(key, repo+"#") {
			continue
		}
		for _, c := range cs {
			if c.ID == id {
				n, _ := strconv.Atoi(strings.TrimPrefix(key, repo+"#"))
				return c, n, true
			}
		}
	}
	return nil, 0, false
}

func (s *Server) ghEditComment(w http.ResponseWriter, r *http.Request, repo string) {
	in, ok := s.ghCommentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	c, n, ok := s.ghComment(repo, r)
	var doc map[string]any
	if ok {
		c.setBody(in.Body)
		c.Updated = s.edited(c.Updated)
		s.touch(fmt.Sprintf("%s#%d", repo, n))
		doc = s.ghCommentJSON(repo, n, c)
	}
	s.mu.Unlock()
	if !ok {
		s.ghError(w, r, 404, "Not Found", nil)
		return
	}
	s.ghOK(w, 200, doc)
}

// ghCommentBody reads a comment's JSON body, answering GitHub's errors for
// a malformed or refused one (ok false).
func (s *Server) ghCommentBody(w http.ResponseWriter, r *http.Request) (in struct {
	Body string `json:"body"`
}, ok bool) {
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.ghError(w, r, 400, "Problems parsing JSON", nil)
		return in, false
	}
	return in, !s.ghRejected(w, r, "IssueComment")
}
