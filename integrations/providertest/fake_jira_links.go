package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// RemoteLink is a Jira remote issue link as the fake stores it.
type RemoteLink struct {
	ID           int64
	GlobalID     string
	Relationship string
	URL          string
	Title        string
	Resolved     bool
}

// RemoteLinks returns the remote links of Jira issue key, oldest first.
func (s *Server) RemoteLinks(key string) []RemoteLink {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []RemoteLink
	for _, l := range s.flowState().links[key] {
		out = append(out, *l)
	}
	return out
}

func (s *Server) jiraRemoteLinkJSON(key string, l *RemoteLink) map[string]any {
	return map[string]any{
		"id": l.ID, "self": fmt.Sprintf("%srest/api/2/issue/%s/remotelink/%d", s.URL(), key, l.ID),
		"globalId": l.GlobalID, "relationship": l.Relationship,
		"object": map[string]any{"url": l.URL, "title": l.Title, "status": map[string]any{"resolved": l.Resolved}},
	}
}

// jiraAddRemoteLink serves POST /rest/api/2/issue/{key}/remotelink: a link
// whose globalId the issue already has is updated (200), any other is
// created (201), as Jira does.
func (s *Server) jiraAddRemoteLink(w http.ResponseWriter, r *http.Request) {
	var in struct {
		GlobalID     string `json:"globalId"`
		Relationship string `json:"relationship"`
		Object       struct {
			URL    string `json:"url"`
			Title  string `json:"title"`
			Status struct {
				Resolved bool `json:"resolved"`
			} `json:"status"`
		} `json:"object"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.jiraError(w, r, http.StatusBadRequest, []string{"Unexpected character in the request body."}, nil)
		return
	}
	if in.Object.URL == "" || in.Object.Title == "" {
		s.jiraError(w, r, http.StatusBadRequest, nil, map[string]string{"object": "The remote link needs a url and a title."})
		return
	}
	key := r.PathValue("key")
	s.mu.Lock()
	_, ok := s.issues[key]
	var doc map[string]any
	status := http.StatusCreated
	if ok {
		links := s.flowState().links
		i := slices.IndexFunc(links[key], func(l *RemoteLink) bool { return in.GlobalID != "" && l.GlobalID == in.GlobalID })
		if i < 0 {
			s.nextID++
			links[key] = append(links[key], &RemoteLink{ID: s.nextID, GlobalID: in.GlobalID})
			i = len(links[key]) - 1
		} else {
			status = http.StatusOK
		}
		l := links[key][i]
		l.Relationship, l.URL, l.Title, l.Resolved = in.Relationship, in.Object.URL, in.Object.Title, in.Object.Status.Resolved
		doc = map[string]any{"id": l.ID, "self": s.jiraRemoteLinkJSON(key, l)["self"]}
	}
	s.mu.Unlock()
	if !ok {
		s.jiraError(w, r, http.StatusNotFound, []string{"Issue does not exist or you do not have permission to see it."}, nil)
		return
	}
	writeJSON(w, status, doc)
}

// jiraListRemoteLinks serves GET /rest/api/2/issue/{key}/remotelink.
func (s *Server) jiraListRemoteLinks(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	s.mu.Lock()
	_, ok := s.issues[key]
	ok = ok && !s.rel.off // a Jira without remote links answers as a missing resource
	docs := []map[string]any{}
	for _, l := range s.flowState().links[key] {
		docs = append(docs, s.jiraRemoteLinkJSON(key, l))
	}
	s.mu.Unlock()
	if !ok {
		s.jiraError(w, r, http.StatusNotFound, []string{"Issue does not exist or you do not have permission to see it."}, nil)
		return
	}
	writeJSON(w, http.StatusOK, docs)
}
