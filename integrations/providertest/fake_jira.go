package providertest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// JiraEpic is the seeded issue (an Epic) in project PROJ.
const JiraEpic = "PROJ-1"

const jiraTime = "2006-01-02T15:04:05.000-0700"

var jiraIssueTypes = []string{"Task", "Story", "Bug", "Epic", "Sub-task"}

// NewJira starts a fake Jira REST v2 API with projects PROJ and OPS and the
// epic PROJ-1. auth is "cloud" (basic email:token) or "datacenter" (bearer
// personal access token); it also decides how comment authors are shaped
// (Cloud accountId, Data Center name).
func NewJira(t testing.TB, auth string) *Server {
	s := newServer("jira")
	s.auth = auth
	s.projects = []string{"PROJ", "OPS"}
	s.issues[JiraEpic] = &Issue{Key: JiraEpic, Number: 1, Title: "Seeded ticket", Body: "Seeded body", State: "To Do", Author: "alice", Labels: []string{"bug"}, IssueType: "Epic"}
	s.nextNumber["PROJ"] = 1
	s.nextNumber["OPS"] = 0
	s.start(s.jiraMux())
	t.Cleanup(s.Close)
	return s
}

func (s *Server) jiraMux() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.HandlerFunc) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if !s.jiraAuthorized(r) {
				s.jiraError(w, r, http.StatusUnauthorized, []string{"You are not authenticated. Authentication required to perform this operation."}, nil)
				return
			}
			h(w, r)
		})
	}
	handle("GET /rest/api/2/search", s.jiraSearch)
	handle("GET /rest/api/2/search/jql", s.jiraSearchJQL)
	handle("GET /rest/api/2/issue/{key}", s.jiraGetIssue)
	handle("POST /rest/api/2/issue", s.jiraCreateIssue)
	handle("PUT /rest/api/2/issue/{key}", s.jiraEditIssue)
	handle("GET /rest/api/2/issue/{key}/comment", s.jiraListComments)
	handle("POST /rest/api/2/issue/{key}/comment", s.jiraCreateComment)
	handle("PUT /rest/api/2/issue/{key}/comment/{id}", s.jiraEditComment)
	handle("POST /rest/api/2/issue/{key}/remotelink", s.jiraAddRemoteLink)
	handle("GET /rest/api/2/issue/{key}/remotelink", s.jiraListRemoteLinks)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.jiraError(w, r, http.StatusNotFound, []string{"null for uri: " + r.URL.Path}, nil)
	})
	return mux
}

func (s *Server) jiraAuthorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	if s.auth == "datacenter" {
		return h == "Bearer "+s.token
	}
	return h == "Basic "+base64.StdEncoding.EncodeToString([]byte(s.email+":"+s.token))
}

func (s *Server) jiraError(w http.ResponseWriter, r *http.Request, status int, msgs []string, fields map[string]string) {
	if fields == nil {
		fields = map[string]string{}
	}
	if suffix := s.echoSuffix(r); suffix != "" {
		msgs = append(slices.Clone(msgs), suffix)
	}
	if msgs == nil {
		msgs = []string{}
	}
	writeJSON(w, status, map[string]any{"errorMessages": msgs, "errors": fields})
}

func (s *Server) jiraNotFound(w http.ResponseWriter, r *http.Request) {
	s.jiraError(w, r, http.StatusNotFound, []string{"Issue does not exist or you do not have permission to see it."}, nil)
}

func (s *Server) jiraRejected(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	rej := s.reject
	s.reject = nil
	s.mu.Unlock()
	if rej == nil {
		return false
	}
	s.jiraError(w, r, http.StatusBadRequest, nil, map[string]string{rej[0]: rej[1]})
	return true
}

func (s *Server) jiraUser(login string) map[string]any {
	if s.auth == "datacenter" {
		return map[string]any{"name": login, "key": "JIRAUSER_" + login, "displayName": login, "active": true}
	}
	return map[string]any{"accountId": login, "displayName": login, "active": true, "accountType": "atlassian"}
}

func (s *Server) jiraCommentJSON(is *Issue, c *Comment) map[string]any {
	id := strconv.FormatInt(c.ID, 10)
	return map[string]any{
		"self":         fmt.Sprintf("%srest/api/2/issue/%d/comment/%s", s.URL(), 10000+is.Number, id),
		"id":           id,
		"author":       s.jiraUser(c.Author),
		"updateAuthor": s.jiraUser(c.Author),
		"body":         c.Body,
		"created":      c.Created.Format(jiraTime),
		"updated":      c.Updated.Format(jiraTime),
	}
}

func (s *Server) jiraGetIssue(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	is, ok := s.issues[r.PathValue("key")]
	var doc map[string]any
	if ok {
		fields := map[string]any{
			"summary": is.Title, "description": is.Body, "labels": slices.Clone(is.Labels),
			"status":    map[string]any{"name": is.State},
			"issuetype": map[string]any{"name": is.IssueType},
			"reporter":  s.jiraUser(is.Author),
			"project":   map[string]any{"key": is.Key[:strings.LastIndex(is.Key, "-")]},
		}
		if is.Parent != "" {
			fields["parent"] = map[string]any{"key": is.Parent}
		}
		s.jiraRelationFields(is, fields)
		doc = map[string]any{"id": strconv.Itoa(10000 + is.Number), "key": is.Key, "self": fmt.Sprintf("%srest/api/2/issue/%d", s.URL(), 10000+is.Number), "fields": fields}
	}
	s.mu.Unlock()
	if !ok {
		s.jiraNotFound(w, r)
		return
	}
	writeJSON(w, 200, doc)
}

func (s *Server) jiraCreateIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Fields struct {
			Project     struct{ Key string }  `json:"project"`
			Summary     string                `json:"summary"`
			Description string                `json:"description"`
			IssueType   struct{ Name string } `json:"issuetype"`
			Labels      []string              `json:"labels"`
			Parent      *struct{ Key string } `json:"parent"`
		} `json:"fields"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.jiraError(w, r, 400, []string{"Unexpected character in request body."}, nil)
		return
	}
	if s.jiraRejected(w, r) {
		return
	}
	f := in.Fields
	problems := map[string]string{}
	s.mu.Lock()
	if _, ok := s.nextNumber[f.Project.Key]; !ok {
		problems["project"] = "valid project is required"
	}
	if f.Summary == "" {
		problems["summary"] = "You must specify a summary of the issue."
	}
	if !slices.Contains(jiraIssueTypes, f.IssueType.Name) {
		problems["issuetype"] = "The issue type selected is invalid."
	}
	if f.Parent != nil {
		if _, ok := s.issues[f.Parent.Key]; !ok {
			problems["parent"] = "Could not find issue by id or key."
		}
	}
	for _, l := range f.Labels {
		if strings.ContainsAny(l, " \t") {
			problems["labels"] = fmt.Sprintf("The label '%s' contains spaces which is invalid.", l)
		}
	}
	if len(problems) > 0 {
		s.mu.Unlock()
		s.jiraError(w, r, 400, nil, problems)
		return
	}
	s.nextNumber[f.Project.Key]++
	n := s.nextNumber[f.Project.Key]
	key := fmt.Sprintf("%s-%d", f.Project.Key, n)
	is := &Issue{Key: key, Number: n, Title: f.Summary, Body: f.Description, State: "To Do", Author: s.bot, Labels: addLabels(nil, f.Labels...), IssueType: f.IssueType.Name}
	if f.Parent != nil {
		is.Parent = f.Parent.Key
	}
	s.issues[key] = is
	s.mu.Unlock()
	id := strconv.Itoa(10000 + n)
	writeJSON(w, 201, map[string]any{"id": id, "key": key, "self": s.URL() + "rest/api/2/issue/" + id})
}

func (s *Server) jiraEditIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Fields map[string]any `json:"fields"`
		Update struct {
			Labels []struct {
				Add    string `json:"add"`
				Remove string `json:"remove"`
			} `json:"labels"`
		} `json:"update"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.jiraError(w, r, 400, []string{"Unexpected character in request body."}, nil)
		return
	}
	if s.jiraRejected(w, r) {
		return
	}
	s.mu.Lock()
	is, ok := s.issues[r.PathValue("key")]
	if ok {
		if d, has := in.Fields["description"]; has {
			is.Body, _ = d.(string)
		}
		for _, op := range in.Update.Labels {
			if op.Add != "" {
				is.Labels = addLabels(is.Labels, op.Add)
			}
			if op.Remove != "" {
				is.Labels, _ = removeLabel(is.Labels, op.Remove)
			}
		}
	}
	s.mu.Unlock()
	if !ok {
		s.jiraNotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) jiraListComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	is, ok := s.issues[r.PathValue("key")]
	if !ok {
		s.mu.Unlock()
		s.jiraNotFound(w, r)
		return
	}
	q := r.URL.Query()
	startAt, _ := strconv.Atoi(q.Get("startAt"))
	startAt = max(startAt, 0)
	maxResults := min(atoiOr(q.Get("maxResults"), 50), s.pageSize)
	all := s.comments[is.Key]
	docs := []map[string]any{}
	for i := startAt; i < min(startAt+maxResults, len(all)); i++ {
		docs = append(docs, s.jiraCommentJSON(is, all[i]))
	}
	doc := map[string]any{"startAt": startAt, "maxResults": maxResults, "total": len(all), "comments": docs}
	s.mu.Unlock()
	etag := etagOf(doc)
	if r.Header.Get("If-None-Match") == etag {
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	writeJSON(w, 200, doc)
}

func (s *Server) jiraCreateComment(w http.ResponseWriter, r *http.Request) {
	in, ok := s.jiraCommentBody(w, r)
	if !ok {
		return
	}
	if in.Body == "" {
		s.jiraError(w, r, 400, nil, map[string]string{"comment": "Comment body can not be empty!"})
		return
	}
	s.mu.Lock()
	is, ok := s.issues[r.PathValue("key")]
	var doc map[string]any
	if ok {
		doc = s.jiraCommentJSON(is, s.addComment(is.Key, s.bot, "", in.Body))
	}
	s.mu.Unlock()
	if !ok {
		s.jiraNotFound(w, r)
		return
	}
	writeJSON(w, 201, doc)
}

func (s *Server) jiraEditComment(w http.ResponseWriter, r *http.Request) {
	in, ok := s.jiraCommentBody(w, r)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	is, ok := s.issues[r.PathValue("key")]
	var doc map[string]any
	if ok {
		for _, c := range s.comments[is.Key] {
			if c.ID == id {
				c.setBody(in.Body)
				c.Updated = s.edited(c.Updated)
				doc = s.jiraCommentJSON(is, c)
			}
		}
	}
	s.mu.Unlock()
	if doc == nil {
		s.jiraNotFound(w, r)
		return
	}
	writeJSON(w, 200, doc)
}

// jiraCommentBody reads a comment's JSON body, answering Jira's errors for
// a malformed or refused one (ok false).
func (s *Server) jiraCommentBody(w http.ResponseWriter, r *http.Request) (in struct {
	Body string `json:"body"`
}, ok bool) {
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		s.jiraError(w, r, 400, []string{"Unexpected character in request body."}, nil)
		return in, false
	}
	return in, !s.jiraRejected(w, r)
}
