package providertest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

var (
	gqlRepoField  = lazyre.New(`^\s*(r\d+): repository\(owner: \$(\w+), name: \$(\w+)\) \{$`)
	gqlIssueField = lazyre.New(`^\s*(i\d+): issue\(number: (\d+)\) \{ \.\.\.rel \}$`)
)

// gqlRelations answers the batched relations read: repository fields
// aliased r0, r1, … (owner and name as variables), each holding issue
// fields aliased i<number> that spread fragment rel (number, title, body,
// state, stateReason, repository, parent, and the first page of subIssues,
// blockedBy and blocking, each capped at the fake's page size). As GitHub
// does, an unknown repository or issue is null with a NOT_FOUND error whose
// path names it, beside the rest of the data; a fake without relationship
// features (DisableRelations) refuses the query the way a server without
// the fields validates it: undefinedField, no data.
func (s *Server) gqlRelations(r *http.Request, in gqlRequest) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rel.off {
		return map[string]any{"errors": []gqlError{{
			Path:       []string{"fragment rel", "subIssues"},
			Extensions: map[string]any{"code": "undefinedField", "typeName": "Issue", "fieldName": "subIssues"},
			Message:    "Field 'subIssues' doesn't exist on type 'Issue'",
		}}}
	}
	data := map[string]any{}
	var errs []gqlError
	var repoAlias, repo string
	for _, line := range strings.Split(in.Query, "\n") {
		if m := gqlRepoField().FindStringSubmatch(line); m != nil {
			owner, _ := in.Variables[m[2]].(string)
			name, _ := in.Variables[m[3]].(string)
			repoAlias, repo = m[1], owner+"/"+name
			if _, ok := s.nextNumber[repo]; !ok {
				data[repoAlias] = nil
				errs = append(errs, gqlError{Type: "NOT_FOUND", Path: []string{repoAlias},
					Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s'.%s", repo, s.echoLocked(r))})
				repoAlias = ""
				continue
			}
			data[repoAlias] = map[string]any{}
			continue
		}
		m := gqlIssueField().FindStringSubmatch(line)
		if m == nil || repoAlias == "" {
			continue
		}
		fields := data[repoAlias].(map[string]any)
		is, ok := s.issues[repo+"#"+m[2]]
		if !ok {
			fields[m[1]] = nil
			errs = append(errs, gqlError{Type: "NOT_FOUND", Path: []string{repoAlias, m[1]},
				Message: fmt.Sprintf("Could not resolve to an Issue with the number of %s.", m[2])})
			continue
		}
		fields[m[1]] = s.gqlRelIssue(repo, is)
	}
	out := map[string]any{"data": data}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	return out
}

// gqlRelIssue is fragment rel of one issue, under s.mu.
func (s *Server) gqlRelIssue(repo string, is *Issue) map[string]any {
	doc := s.gqlRelated(repo, is)
	doc["body"] = is.Body
	doc["parent"] = nil
	for parent, children := range s.rel.subIssues {
		if slices.Contains(children, is.Key) {
			if p, ok := s.issues[parent]; ok {
				prepo, _, _ := cutKey(parent)
				doc["parent"] = s.gqlRelated(prepo, p)
			}
		}
	}
	var blocking []string
	for item, blockers := range s.rel.blockedBy {
		if slices.Contains(blockers, is.Key) {
			blocking = append(blocking, item)
		}
	}
	slices.Sort(blocking)
	doc["subIssues"] = s.gqlRelationPage(s.rel.subIssues[is.Key])
	doc["blockedBy"] = s.gqlRelationPage(s.rel.blockedBy[is.Key])
	doc["blocking"] = s.gqlRelationPage(blocking)
	return doc
}

// gqlRelationPage is the first page of a relationship connection.
func (s *Server) gqlRelationPage(keys []string) map[string]any {
	nodes := []map[string]any{}
	for _, k := range keys {
		if is, ok := s.issues[k]; ok {
			repo, _, _ := cutKey(k)
			nodes = append(nodes, s.gqlRelated(repo, is))
		}
	}
	size := min(100, s.pageSize)
	more := len(nodes) > size
	return map[string]any{"pageInfo": map[string]any{"hasNextPage": more}, "nodes": nodes[:min(len(nodes), size)]}
}

// gqlRelated is fragment related of one issue.
func (s *Server) gqlRelated(repo string, is *Issue) map[string]any {
	var reason any
	if is.StateReason != "" {
		reason = strings.ToUpper(is.StateReason)
	}
	return map[string]any{
		"number": is.Number, "title": is.Title, "state": strings.ToUpper(is.State), "stateReason": reason,
		"repository": map[string]any{"nameWithOwner": repo},
	}
}

// RelationReads counts the requests a dependency read sends: REST issue
// reads and relationship listings, and GraphQL queries (every POST to the
// GraphQL endpoint, whatever it asked).
func (s *Server) RelationReads() (rest, graphQL int) {
	for _, r := range s.Requests() {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.Path, "graphql"):
			graphQL++
		case r.Method == http.MethodGet && relationPath().MatchString(r.Path):
			rest++
		}
	}
	return rest, graphQL
}

var relationPath = lazyre.New(`/issues/[0-9]+(/(sub_issues|parent|dependencies/blocked_by|dependencies/blocking))?$`)
