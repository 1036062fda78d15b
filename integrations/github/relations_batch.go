package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.RelationBatchReader = (*Provider)(nil)

// batchSize is how many issues one GraphQL query reads: a page, as GitHub
// pages its connections.
const batchSize = 100

// relationsFragment is what one batched read asks of each issue: the same
// facts ReadRelations reads over REST (the issue, its sub-issues, parent,
// blocked-by and blocking), each connection's first page with whether more
// follow.
const relationsFragment = `fragment rel on Issue {
  number title body state stateReason(enableDuplicate: true)
  repository { nameWithOwner }
  parent { ...related }
  subIssues(first: 100) { pageInfo { hasNextPage } nodes { ...related } }
  blockedBy(first: 100) { pageInfo { hasNextPage } nodes { ...related } }
  blocking(first: 100) { pageInfo { hasNextPage } nodes { ...related } }
}
fragment related on Issue { number title state stateReason(enableDuplicate: true) repository { nameWithOwner } }`

// gqlRelIssue is one issue of a batched read.
type gqlRelIssue struct {
	gqlRelated
	Body      string          `json:"body"`
	Parent    *gqlRelated     `json:"parent"`
	SubIssues gqlRelationPage `json:"subIssues"`
	BlockedBy gqlRelationPage `json:"blockedBy"`
	Blocking  gqlRelationPage `json:"blocking"`
}

type gqlRelated struct {
	Number      int    `json:"number"`
	Title       string `json:"title"`
	State       string `json:"state"`
	StateReason string `json:"stateReason"`
	Repository  struct {
		NameWithOwner string `json:"nameWithOwner"`
	} `json:"repository"`
}

type gqlRelationPage struct {
	PageInfo struct {
		HasNextPage bool `json:"hasNextPage"`
	} `json:"pageInfo"`
	Nodes []gqlRelated `json:"nodes"`
}

// gqlRelationsOff is set once a server's GraphQL answered that it lacks the
// relationship fields: from then on every read goes over REST.
type gqlRelationsOff struct {
	why atomic.Pointer[string]
}

// ReadRelationsBatch reads the relations of every ref in one GraphQL query
// per page of 100 issues (aliased issue(number:) fields, grouped by
// repository). Each answer means what ReadRelations answers: a connection
// longer than its first page is read again, whole, over REST; an issue or
// repository GraphQL cannot resolve (missing, forbidden, a pull request's
// number) is read over REST, which answers it as ReadRelations does. A
// server whose GraphQL lacks sub-issues or dependencies (older GitHub
// Enterprise Server) is read one issue at a time over REST, and Fallback
// says why.
func (p *Provider) ReadRelationsBatch(ctx context.Context, refs []integrations.Ref) integrations.RelationsBatch {
	out := integrations.RelationsBatch{Reads: make([]integrations.RelationsRead, len(refs))}
	var todo []int
	for i, ref := range refs {
		if err := p.checkRef(integrations.OpReadRelations, ref); err != nil {
			out.Reads[i].Err = err
			continue
		}
		todo = append(todo, i)
	}
	for len(todo) > 0 {
		chunk := todo[:min(batchSize, len(todo))]
		todo = todo[len(chunk):]
		if why := p.gqlOff.why.Load(); why != nil {
			out.Fallback = *why
			p.readEachREST(ctx, refs, chunk, out.Reads)
			continue
		}
		p.readChunk(ctx, refs, chunk, out.Reads)
		if why := p.gqlOff.why.Load(); why != nil {
			out.Fallback = *why
		}
	}
	return out
}

func (p *Provider) readEachREST(ctx context.Context, refs []integrations.Ref, idx []int, reads []integrations.RelationsRead) {
	for _, i := range idx {
		reads[i].Relations, reads[i].Err = p.ReadRelations(ctx, refs[i])
	}
}

// readChunk reads at most batchSize refs in one query.
func (p *Provider) readChunk(ctx context.Context, refs []integrations.Ref, idx []int, reads []integrations.RelationsRead) {
	op := integrations.OpReadRelations
	query, vars, alias := relationsQuery(refs, idx)
	tgt := fmt.Sprintf("%d issues", len(idx))
	if len(idx) == 1 {
		tgt = target(refs[idx[0]])
	}
	ans, err := p.graphQLRelations(ctx, op, tgt, query, vars)
	var api *integrations.APIError
	if errors.As(err, &api) && api.Status == http.StatusNotFound {
		why := "its GraphQL endpoint answered HTTP 404"
		p.gqlOff.why.CompareAndSwap(nil, &why)
		p.readEachREST(ctx, refs, idx, reads)
		return
	}
	if err == nil {
		if why := missingFields(ans.errs); why != "" {
			p.gqlOff.why.CompareAndSwap(nil, &why)
			p.readEachREST(ctx, refs, idx, reads)
			return
		}
		if len(ans.errs) > 0 && !allPathed(ans.errs) {
			err = p.wrap(op, tgt, p.graphQLError(op, tgt, ans.resp, ans.errs))
		}
	}
	if err != nil {
		for _, i := range idx {
			reads[i].Err = err
		}
		return
	}
	var data map[string]map[string]*gqlRelIssue
	if len(ans.data) > 0 && string(ans.data) != "null" {
		if derr := ans.decode(p, op, tgt, &data); derr != nil {
			for _, i := range idx {
				reads[i].Err = p.wrap(op, tgt, derr)
			}
			return
		}
	}
	failed := map[string]bool{} // aliases GraphQL could not resolve
	for _, e := range ans.errs {
		failed[pathKey(e.Path)] = true
	}
	for _, i := range idx {
		ra, ia := alias(i)
		is := data[ra][ia]
		if is == nil || failed[ra] || failed[ra+"."+ia] {
			reads[i].Relations, reads[i].Err = p.ReadRelations(ctx, refs[i])
			continue
		}
		reads[i].Relations, reads[i].Err = p.relationsOf(ctx, refs[i], is)
	}
}

// graphQLRelations posts query, waiting once for a RATE_LIMITED answer's
// reset when it is within MaxWait (as graphQL does).
func (p *Provider) graphQLRelations(ctx context.Context, op integrations.Op, tgt, query string, vars map[string]any) (gqlAnswer, error) {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return gqlAnswer{}, fmt.Errorf("github %s %s: encode query: %w", op, tgt, err)
	}
	for attempt := 0; ; attempt++ {
		ans, err := p.graphQLPost(ctx, op, tgt, body)
		if err == nil && rateLimited(ans.errs) {
			err = p.graphQLError(op, tgt, ans.resp, ans.errs)
		}
		var api *integrations.APIError
		if attempt == 0 && errors.As(err, &api) && api.Kind == integrations.ErrRateLimited && !api.RetryAt.IsZero() {
			if wait := api.RetryAt.Sub(p.now()) + time.Second; wait <= p.maxWait {
				if serr := p.sleep(ctx, max(wait, time.Second)); serr != nil {
					return gqlAnswer{}, p.wrap(op, tgt, serr)
				}
				continue
			}
		}
		return ans, p.wrap(op, tgt, err)
	}
}

func rateLimited(errs []gqlError) bool {
	for _, e := range errs {
		if e.Type == "RATE_LIMITED" {
			return true
		}
	}
	return false
}

// missingFields says why an answer shows a server without the relationship
// fields ("" when it does not): GitHub validates a query before running it
// and names an unknown field with code undefinedField.
func missingFields(errs []gqlError) string {
	for _, e := range errs {
		if e.Extensions.Code == "undefinedField" || strings.Contains(e.Message, "doesn't exist on type") {
			return "its GraphQL API lacks sub-issues or issue dependencies (" + e.Message + ")"
		}
	}
	return ""
}

// allPathed reports whether every error names the alias it concerns, so the
// rest of the answer stands.
func allPathed(errs []gqlError) bool {
	for _, e := range errs {
		if len(e.Path) == 0 || (e.Type != "NOT_FOUND" && e.Type != "FORBIDDEN") {
			return false
		}
	}
	return true
}

// pathKey joins the first two elements of an error's path ("r0.i12"): the
// repository alias and the issue alias.
func pathKey(path []any) string {
	var parts []string
	for _, el := range path[:min(2, len(path))] {
		parts = append(parts, fmt.Sprint(el))
	}
	return strings.Join(parts, ".")
}

// relationsQuery builds one query reading the refs at idx, a repository
// field per repository (owner and name as variables) holding an issue
// field per number. alias names the fields that answer refs[i].
func relationsQuery(refs []integrations.Ref, idx []int) (string, map[string]any, func(i int) (string, string)) {
	vars := map[string]any{}
	repoAlias := map[string]string{}
	var order []string
	byRepo := map[string][]int{}
	for _, i := range idx {
		k := strings.ToLower(refs[i].Owner + "/" + refs[i].Repo)
		if _, ok := repoAlias[k]; !ok {
			a := "r" + strconv.Itoa(len(order))
			repoAlias[k] = a
			order = append(order, k)
			vars["o"+a[1:]], vars["n"+a[1:]] = refs[i].Owner, refs[i].Repo
		}
		byRepo[k] = append(byRepo[k], i)
	}
	var q strings.Builder
	q.WriteString("query(")
	for n := range order {
		if n > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "$o%d: String!, $n%d: String!", n, n)
	}
	q.WriteString(") {\n")
	for n, k := range order {
		fmt.Fprintf(&q, "  r%d: repository(owner: $o%d, name: $n%d) {\n", n, n, n)
		seen := map[int]bool{}
		for _, i := range byRepo[k] {
			if num := refs[i].Number; !seen[num] {
				seen[num] = true
				fmt.Fprintf(&q, "    i%d: issue(number: %d) { ...rel }\n", num, num)
			}
		}
		q.WriteString("  }\n")
	}
	q.WriteString("}\n")
	q.WriteString(relationsFragment)
	return q.String(), vars, func(i int) (string, string) {
		return repoAlias[strings.ToLower(refs[i].Owner+"/"+refs[i].Repo)], "i" + strconv.Itoa(refs[i].Number)
	}
}

// relationsOf turns one issue of a batched answer into what ReadRelations
// reads; a connection with more than its first page is read over REST.
func (p *Provider) relationsOf(ctx context.Context, ref integrations.Ref, is *gqlRelIssue) (integrations.Relations, error) {
	item, _ := p.relatedOfGQL(is.gqlRelated, "")
	item.Ref = integrations.Ref{System: System, Host: p.host, Owner: ref.Owner, Repo: ref.Repo, Number: ref.Number}
	if is.Number > 0 {
		item.Ref.Number = is.Number
	}
	out := integrations.Relations{Item: item, Body: is.Body}
	base := fmt.Sprintf("repos/%s/%s/issues/%d/", ref.Owner, ref.Repo, ref.Number)
	lists := []struct {
		page *gqlRelationPage
		path string
		via  string
		dst  *[]integrations.Related
	}{
		{&is.SubIssues, subIssuesPath, "sub-issue", &out.Children},
		{&is.BlockedBy, blockedByPath, "dependency", &out.BlockedBy},
		{&is.Blocking, blockingPath, "dependency", &out.Blocking},
	}
	for _, l := range lists {
		if l.page.PageInfo.HasNextPage {
			all, ok, err := p.listRelated(ctx, ref, base+l.path, l.via, &out)
			if err != nil {
				return integrations.Relations{}, err
			}
			if !ok { // the feature vanished between the two reads
				return p.ReadRelations(ctx, ref)
			}
			*l.dst = all
			continue
		}
		seen := map[string]bool{}
		for _, n := range l.page.Nodes {
			r, good := p.relatedOfGQL(n, l.via)
			if !good {
				out.Warnings = append(out.Warnings, fmt.Sprintf("github %s: a %s of %s names no repository; left out", hostName(p.host), l.via, target(ref)))
				continue
			}
			if key := strings.ToLower(r.Ref.String()); !seen[key] {
				seen[key] = true
				*l.dst = append(*l.dst, r)
			}
		}
	}
	if is.Parent != nil {
		r, good := p.relatedOfGQL(*is.Parent, "parent")
		if good {
			out.Parent = &r
		} else {
			out.Warnings = append(out.Warnings, fmt.Sprintf("github %s: the parent of %s names no repository; left out", hostName(p.host), target(ref)))
		}
	}
	return out, nil
}

// relatedOfGQL is relatedFrom for a GraphQL issue: GraphQL's OPEN/CLOSED
// and COMPLETED/NOT_PLANNED/DUPLICATE are REST's open/closed and
// completed/not_planned/duplicate.
func (p *Provider) relatedOfGQL(n gqlRelated, via string) (integrations.Related, bool) {
	owner, repo, err := ParseRepo(n.Repository.NameWithOwner)
	state, reason := StateOf(strings.ToLower(n.State), strings.ToLower(n.StateReason))
	return integrations.Related{
		Ref:    integrations.Ref{System: System, Host: p.host, Owner: owner, Repo: repo, Number: n.Number},
		Title:  n.Title,
		State:  state,
		Reason: reason,
		Via:    via,
	}, err == nil && n.Number > 0
}
