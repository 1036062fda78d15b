package providertest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// jiraLinkType is an issue link type of the fake Jira.
type jiraLinkType struct{ name, inward, outward string }

// JiraLinkTypes are the link types the fake knows, as GET
// /rest/api/2/issueLinkType would list them on a default site.
var jiraLinkTypes = []jiraLinkType{
	{"Blocks", "is blocked by", "blocks"},
	{"Depends", "is depended on by", "depends on"},
	{"Relates", "relates to", "relates to"},
	{"Cloners", "is cloned by", "clones"},
}

// jiraLink reads "subject <outward description> object", e.g. "PROJ-2
// blocks PROJ-3".
type jiraLink struct {
	id              int
	typeName        string
	subject, object string
}

// LinkIssues links two Jira issues with a link of linkType (Blocks, Depends,
// Relates, Cloners) so that it reads "subject <outward> object": subject
// "blocks" / "depends on" object.
func (s *Server) LinkIssues(linkType string, subject, object integrations.Ref) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rel.init()
	s.rel.links = append(s.rel.links, jiraLink{id: 20000 + len(s.rel.links), typeName: linkType, subject: keyOf(subject), object: keyOf(object)})
}

// AddRemoteLink adds a remote (web) link from item to url with the given
// relationship, e.g. "is blocked by".
func (s *Server) AddRemoteLink(item integrations.Ref, relationship, url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyOf(item)
	links := s.flowState().links
	s.nextID++
	links[k] = append(links[k], &RemoteLink{ID: s.nextID, Relationship: relationship, URL: url, Title: url})
}

func jiraLinkTypeOf(name string) jiraLinkType {
	for _, t := range jiraLinkTypes {
		if t.name == name {
			return t
		}
	}
	return jiraLinkType{name, name, name}
}

// jiraStatusJSON is a status with its category, as Jira REST v2 writes it.
func jiraStatusJSON(name string) map[string]any {
	key := "new"
	switch name {
	case "Done", "Closed", "Resolved":
		key = "done"
	case "In Progress", "In Review":
		key = "indeterminate"
	}
	return map[string]any{"name": name, "statusCategory": map[string]any{"key": key}}
}

// jiraLinkedJSON is an issue as links, subtasks and parents embed it.
func (s *Server) jiraLinkedJSON(is *Issue) map[string]any {
	return map[string]any{
		"id": strconv.Itoa(10000 + is.Number), "key": is.Key,
		"self":   fmt.Sprintf("%srest/api/2/issue/%d", s.URL(), 10000+is.Number),
		"fields": map[string]any{"summary": is.Title, "status": jiraStatusJSON(is.State), "issuetype": map[string]any{"name": is.IssueType}},
	}
}

// jiraRelationFields adds status category, resolution, parent, subtasks
// and issue links to an issue document (under s.mu).
func (s *Server) jiraRelationFields(is *Issue, fields map[string]any) {
	fields["status"] = jiraStatusJSON(is.State)
	fields["resolution"] = nil
	if is.Resolution != "" {
		fields["resolution"] = map[string]any{"name": is.Resolution}
	}
	if p, ok := s.issues[is.Parent]; ok {
		fields["parent"] = s.jiraLinkedJSON(p)
	}
	subtasks := []map[string]any{}
	for _, c := range s.jiraChildren(is.Key) {
		if c.IssueType == "Sub-task" {
			subtasks = append(subtasks, s.jiraLinkedJSON(c))
		}
	}
	fields["subtasks"] = subtasks
	if s.rel.off {
		return
	}
	links := []map[string]any{}
	for _, l := range s.rel.links {
		t := jiraLinkTypeOf(l.typeName)
		doc := map[string]any{"id": strconv.Itoa(l.id), "type": map[string]any{"id": "1000", "name": t.name, "inward": t.inward, "outward": t.outward}}
		switch {
		case l.subject == is.Key && s.issues[l.object] != nil:
			doc["outwardIssue"] = s.jiraLinkedJSON(s.issues[l.object])
		case l.object == is.Key && s.issues[l.subject] != nil:
			doc["inwardIssue"] = s.jiraLinkedJSON(s.issues[l.subject])
		default:
			continue
		}
		links = append(links, doc)
	}
	fields["issuelinks"] = links
}

// jiraChildren are the issues whose parent is key, oldest first (under s.mu).
func (s *Server) jiraChildren(key string) []*Issue {
	var out []*Issue
	for _, is := range s.issues {
		if is.Parent == key && key != "" {
			out = append(out, is)
		}
	}
	slices.SortFunc(out, func(a, b *Issue) int {
		if c := strings.Compare(a.Key[:strings.LastIndex(a.Key, "-")], b.Key[:strings.LastIndex(b.Key, "-")]); c != 0 {
			return c
		}
		return a.Number - b.Number
	})
	return out
}

var parentJQL = lazyre.New(`^parent = "([A-Z][A-Z0-9_]+-[0-9]+)" ORDER BY created ASC$`)

// jiraChildHits answers JQL parent = "KEY" (under s.mu); false when the
// query is another one or the fake has no relationship features.
func (s *Server) jiraChildHits(jql string) ([]map[string]any, bool) {
	m := parentJQL().FindStringSubmatch(jql)
	if m == nil || s.rel.off {
		return nil, false
	}
	hits := []map[string]any{}
	for _, c := range s.jiraChildren(m[1]) {
		doc := s.jiraLinkedJSON(c)
		if c.Resolution != "" {
			doc["fields"].(map[string]any)["resolution"] = map[string]any{"name": c.Resolution}
		}
		hits = append(hits, doc)
	}
	return hits, true
}
