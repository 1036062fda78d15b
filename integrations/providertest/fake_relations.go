package providertest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// relationStore holds the fakes' sub-issues, dependencies and links.
type relationStore struct {
	subIssues map[string][]string // github: parent key -> child keys
	blockedBy map[string][]string // github: item key -> blocker keys
	links     []jiraLink          // jira issue links
	off       bool                // the tracker has no relationship features
}

func (r *relationStore) init() {
	if r.subIssues == nil {
		r.subIssues = map[string][]string{}
		r.blockedBy = map[string][]string{}
	}
}

// DisableRelations makes the fake a tracker without sub-issues and
// dependencies (GitHub: their endpoints answer 404; Jira: no parent search,
// no remote links).
func (s *Server) DisableRelations() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rel.off = true
}

// SeedIssueIn stores an open ticket in container (GitHub OWNER/REPO, created
// when new; Jira project key) and returns its ref.
func (s *Server) SeedIssueIn(container, title string) integrations.Ref {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextNumber[container]++
	n := s.nextNumber[container]
	is := &Issue{Number: n, Title: title, Body: title + " body", State: "open", Author: "alice", IssueType: "Task"}
	var ref integrations.Ref
	if s.system == "jira" {
		is.State = "To Do"
		ref = integrations.Ref{System: "jira", Key: fmt.Sprintf("%s-%d", container, n)}
	} else {
		owner, repo, _ := strings.Cut(container, "/")
		ref = integrations.Ref{System: "github", Owner: owner, Repo: repo, Number: n}
	}
	is.Key = keyOf(ref)
	s.issues[is.Key] = is
	s.touch(is.Key)
	return ref
}

// SetState opens or closes a ticket. Closed GitHub issues carry reason as
// state_reason ("completed", "not_planned", or "" as old servers); closed
// Jira issues move to Done with reason as resolution ("" for none).
func (s *Server) SetState(ref integrations.Ref, open bool, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.issues[keyOf(ref)]
	if !ok {
		return
	}
	switch {
	case s.system == "jira" && open:
		is.State, is.Resolution = "To Do", ""
	case s.system == "jira":
		is.State, is.Resolution = "Done", reason
	case open:
		is.State, is.StateReason = "open", ""
	default:
		is.State, is.StateReason = "closed", reason
	}
	s.touch(is.Key)
}

// AddSubIssue makes child a sub-issue of parent (GitHub sub-issues; Jira:
// the child's parent field).
func (s *Server) AddSubIssue(parent, child integrations.Ref) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rel.init()
	if s.system == "jira" {
		if is, ok := s.issues[keyOf(child)]; ok {
			is.Parent = keyOf(parent)
		}
		return
	}
	p := keyOf(parent)
	if c := keyOf(child); !slices.Contains(s.rel.subIssues[p], c) {
		s.rel.subIssues[p] = append(s.rel.subIssues[p], c)
		s.touchRelated(p, c)
	}
}

// touchRelated moves the updated time of both ends of a changed GitHub
// relationship: GitHub records the change in both issues' timelines.
func (s *Server) touchRelated(a, b string) {
	s.touch(a)
	s.touch(b)
}

// AddBlocker records that item waits for blocker (GitHub: a "blocked by"
// dependency; Jira: a Blocks link "blocker blocks item").
func (s *Server) AddBlocker(item, blocker integrations.Ref) {
	if s.system == "jira" {
		s.LinkIssues("Blocks", blocker, item)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rel.init()
	i, b := keyOf(item), keyOf(blocker)
	if !slices.Contains(s.rel.blockedBy[i], b) {
		s.rel.blockedBy[i] = append(s.rel.blockedBy[i], b)
		s.touchRelated(i, b)
	}
}

// RemoveBlocker undoes AddBlocker.
func (s *Server) RemoveBlocker(item, blocker integrations.Ref) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rel.init()
	i, b := keyOf(item), keyOf(blocker)
	if s.system == "jira" {
		s.rel.links = slices.DeleteFunc(s.rel.links, func(l jiraLink) bool {
			return l.typeName == "Blocks" && l.subject == b && l.object == i
		})
		return
	}
	if slices.Contains(s.rel.blockedBy[i], b) {
		s.rel.blockedBy[i] = slices.DeleteFunc(s.rel.blockedBy[i], func(k string) bool { return k == b })
		s.touchRelated(i, b)
	}
}

// ghRelated lists the issues of keys under s.mu, skipping unknown ones.
func (s *Server) ghRelated(keys []string) []map[string]any {
	docs := []map[string]any{}
	for _, k := range keys {
		is, ok := s.issues[k]
		if !ok {
			continue
		}
		repo, _, _ := cutKey(k)
		docs = append(docs, s.ghIssueJSON(repo, is))
	}
	return docs
}

func cutKey(key string) (repo string, number int, ok bool) {
	i := strings.LastIndex(key, "#")
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(key[i+1:])
	return key[:i], n, err == nil
}

func (s *Server) ghRelationRoutes(handle func(string, func(http.ResponseWriter, *http.Request, string))) {
	handle("GET /issues/{number}/sub_issues", s.ghRelationList(func(key string) []string { return s.rel.subIssues[key] }))
	handle("GET /issues/{number}/dependencies/blocked_by", s.ghRelationList(func(key string) []string { return s.rel.blockedBy[key] }))
	handle("GET /issues/{number}/dependencies/blocking", s.ghRelationList(func(key string) []string {
		var out []string
		for item, blockers := range s.rel.blockedBy {
			if slices.Contains(blockers, key) {
				out = append(out, item)
			}
		}
		slices.Sort(out)
		return out
	}))
	handle("GET /issues/{number}/parent", s.ghParent)
}

// ghRelationList serves a paged relationship listing of the issue.
func (s *Server) ghRelationList(keys func(key string) []string) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, repo string) {
		s.mu.Lock()
		is, ok := s.ghIssue(repo, r)
		if !ok || s.rel.off {
			s.mu.Unlock()
			s.ghError(w, r, http.StatusNotFound, "Not Found", nil)
			return
		}
		docs := s.ghRelated(keys(is.Key))
		s.mu.Unlock()
		s.ghPage(w, r, docs)
	}
}

func (s *Server) ghParent(w http.ResponseWriter, r *http.Request, repo string) {
	s.mu.Lock()
	is, ok := s.ghIssue(repo, r)
	var doc map[string]any
	if ok && !s.rel.off {
		for parent, children := range s.rel.subIssues {
			if slices.Contains(children, is.Key) {
				if docs := s.ghRelated([]string{parent}); len(docs) == 1 {
					doc = docs[0]
				}
			}
		}
	}
	s.mu.Unlock()
	if doc == nil {
		s.ghError(w, r, http.StatusNotFound, "Not Found", nil)
		return
	}
	s.ghDoc(w, r, doc)
}

// ghParentURL is the API URL of the parent of the issue key, or nil, under
// s.mu: the issue's parent_issue_url.
func (s *Server) ghParentURL(key string) any {
	for parent, children := range s.rel.subIssues {
		if slices.Contains(children, key) {
			if repo, n, ok := cutKey(parent); ok {
				return fmt.Sprintf("%srepos/%s/issues/%d", s.URL(), repo, n)
			}
		}
	}
	return nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
