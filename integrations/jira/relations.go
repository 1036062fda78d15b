package jira

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	jira "github.com/andygrunwald/go-jira"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.RelationReader = (*Provider)(nil)

// BlockingLink names the Jira issue links that make one issue wait for
// another. On an issue, a link whose label toward the other issue is Phrase
// (the type's inward or outward description) reads "this issue waits for
// the other"; the opposite label reads "the other waits for this one".
type BlockingLink struct {
	// Type is the link type name, e.g. Blocks. Empty matches any type that
	// has Phrase as its inward or outward description.
	Type string
	// Phrase is the description that means "waits for", e.g. "is blocked by".
	Phrase string
}

// DefaultBlockingLinks are read when none are configured: the standard
// Blocks type ("is blocked by") and any type described "depends on".
var DefaultBlockingLinks = []BlockingLink{{Type: "Blocks", Phrase: "is blocked by"}, {Phrase: "depends on"}}

// DefaultDoneResolutions are the resolutions that make an issue in the Done
// status category count as closed as done.
var DefaultDoneResolutions = []string{"Done", "Fixed", "Complete", "Completed", "Resolved"}

const relationFields = "summary,description,status,resolution,parent,subtasks,issuelinks"

type statusDoc struct {
	Name           string `json:"name"`
	StatusCategory *struct {
		Key string `json:"key"`
	} `json:"statusCategory"`
}

// linkedDoc is an issue as a relation carries it.
type linkedDoc struct {
	Key    string `json:"key"`
	Fields struct {
		Summary    string     `json:"summary"`
		Status     *statusDoc `json:"status"`
		Resolution *nameField `json:"resolution"`
	} `json:"fields"`
}

type linkDoc struct {
	Type         jira.IssueLinkType `json:"type"`
	InwardIssue  *linkedDoc         `json:"inwardIssue"`
	OutwardIssue *linkedDoc         `json:"outwardIssue"`
}

type relationsDoc struct {
	Key    string `json:"key"`
	Fields struct {
		Summary     string      `json:"summary"`
		Description string      `json:"description"`
		Status      *statusDoc  `json:"status"`
		Resolution  *nameField  `json:"resolution"`
		Parent      *linkedDoc  `json:"parent"`
		Subtasks    []linkedDoc `json:"subtasks"`
		IssueLinks  []linkDoc   `json:"issuelinks"`
	} `json:"fields"`
}

// ReadRelations reads the issue, its parent, its subtasks and child issues
// (JQL parent = KEY), its issue links of the blocking types, and its remote
// links whose relationship is a blocking phrase (returned as Mentions, for
// links to another tracker). A Jira without parent search or remote links
// yields none of them and a warning.
func (p *Provider) ReadRelations(ctx context.Context, ref integrations.Ref) (integrations.Relations, error) {
	op := integrations.OpReadRelations
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Relations{}, err
	}
	var doc relationsDoc
	if err := p.do(ctx, op, ref.Key, http.MethodGet, "rest/api/2/issue/"+ref.Key+"?fields="+relationFields, nil, &doc); err != nil {
		return integrations.Relations{}, err
	}
	if ValidateIssueKey(doc.Key) != nil {
		doc.Key = ref.Key
	}
	f := doc.Fields
	state, reason := p.stateOf(f.Status, f.Resolution)
	out := integrations.Relations{
		Item: integrations.Related{Ref: integrations.Ref{System: System, Key: doc.Key}, Title: f.Summary, State: state, Reason: reason},
		Body: f.Description,
	}
	if f.Parent != nil {
		if r, ok := p.relatedOf(f.Parent, "parent"); ok {
			out.Parent = &r
		}
	}
	seen := map[string]bool{doc.Key: true}
	for i := range f.Subtasks {
		if r, ok := p.relatedOf(&f.Subtasks[i], "subtask"); ok && !seen[r.Ref.Key] {
			seen[r.Ref.Key] = true
			out.Children = append(out.Children, r)
		}
	}
	p.readLinks(f.IssueLinks, &out)
	children, err := p.childIssues(ctx, doc.Key)
	switch {
	case errors.Is(err, integrations.ErrInvalid):
		out.Warnings = append(out.Warnings, fmt.Sprintf("jira: child issues cannot be searched with parent = %q (%v); read as none", doc.Key, err))
	case err != nil:
		return integrations.Relations{}, err
	}
	for _, r := range children {
		if !seen[r.Ref.Key] {
			seen[r.Ref.Key] = true
			out.Children = append(out.Children, r)
		}
	}
	if err := p.remoteLinks(ctx, doc.Key, &out); err != nil {
		return integrations.Relations{}, err
	}
	return out, nil
}

// readLinks sorts the issue links of the blocking types into BlockedBy and
// Blocking; other links are ignored.
func (p *Provider) readLinks(links []linkDoc, out *integrations.Relations) {
	seenBy, seenBlocking := map[string]bool{}, map[string]bool{}
	for _, l := range links {
		other, toward, away := l.OutwardIssue, l.Type.Outward, l.Type.Inward
		if l.InwardIssue != nil {
			other, toward, away = l.InwardIssue, l.Type.Inward, l.Type.Outward
		}
		if other == nil {
			continue
		}
		r, ok := p.relatedOf(other, "link:"+l.Type.Name)
		if !ok || r.Ref.Key == out.Item.Ref.Key {
			continue
		}
		switch {
		case p.waitsFor(l.Type.Name, toward) && !seenBy[r.Ref.Key]:
			seenBy[r.Ref.Key] = true
			out.BlockedBy = append(out.BlockedBy, r)
		case p.waitsFor(l.Type.Name, away) && !seenBlocking[r.Ref.Key]:
			seenBlocking[r.Ref.Key] = true
			out.Blocking = append(out.Blocking, r)
		}
	}
}

// waitsFor reports whether a link of type name, described phrase toward the
// other issue, means "waits for the other issue".
func (p *Provider) waitsFor(name, phrase string) bool {
	for _, b := range p.blocking {
		if (b.Type == "" || strings.EqualFold(strings.TrimSpace(b.Type), strings.TrimSpace(name))) &&
			strings.EqualFold(strings.TrimSpace(b.Phrase), strings.TrimSpace(phrase)) {
			return true
		}
	}
	return false
}

// childIssues runs JQL parent = "KEY" across every page.
func (p *Provider) childIssues(ctx context.Context, key string) ([]integrations.Related, error) {
	jql := fmt.Sprintf(`parent = "%s" ORDER BY created ASC`, key)
	var out []integrations.Related
	err := p.search(ctx, integrations.OpReadRelations, key, jql, "summary,status,resolution", func(raw json.RawMessage) error {
		var d linkedDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		if r, ok := p.relatedOf(&d, "child"); ok {
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// remoteLinks adds the remote links whose relationship is a blocking
// phrase as BlockedBy mentions (their URL names the far end).
func (p *Provider) remoteLinks(ctx context.Context, key string, out *integrations.Relations) error {
	var links []jira.RemoteLink
	err := p.do(ctx, integrations.OpReadRelations, key, http.MethodGet, "rest/api/2/issue/"+key+"/remotelink", nil, &links)
	if errors.Is(err, integrations.ErrNotFound) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("jira: remote links of %s are not available (HTTP 404); read as none", key))
		return nil
	}
	if err != nil {
		return err
	}
	for _, l := range links {
		if l.Object == nil || strings.TrimSpace(l.Object.URL) == "" || !p.phraseKnown(l.Relationship) {
			continue
		}
		out.Mentions = append(out.Mentions, integrations.Mention{Text: strings.TrimSpace(l.Object.URL), Kind: integrations.RelBlockedBy, Via: "remote-link"})
	}
	return nil
}

// phraseKnown reports whether phrase is one of the configured "waits for"
// phrases, whatever the link type (remote links carry no type).
func (p *Provider) phraseKnown(phrase string) bool {
	for _, b := range p.blocking {
		if strings.EqualFold(strings.TrimSpace(b.Phrase), strings.TrimSpace(phrase)) {
			return true
		}
	}
	return false
}

func (p *Provider) relatedOf(d *linkedDoc, via string) (integrations.Related, bool) {
	if d == nil || ValidateIssueKey(d.Key) != nil {
		return integrations.Related{}, false
	}
	state, reason := p.stateOf(d.Fields.Status, d.Fields.Resolution)
	return integrations.Related{Ref: integrations.Ref{System: System, Key: d.Key}, Title: d.Fields.Summary, State: state, Reason: reason, Via: via}, true
}

// stateOf maps a status and resolution onto a dependency state: outside
// the Done category is open; in it, no resolution or a done resolution is
// done, any other resolution (Won't Do, Duplicate) is not done.
func (p *Provider) stateOf(st *statusDoc, res *nameField) (integrations.ItemState, string) {
	if st == nil {
		return integrations.StateUnknown, ""
	}
	if st.StatusCategory == nil || !strings.EqualFold(st.StatusCategory.Key, "done") {
		return integrations.StateOpen, st.Name
	}
	if res == nil || res.Name == "" {
		return integrations.StateDone, st.Name
	}
	for _, d := range p.doneResolutions {
		if strings.EqualFold(strings.TrimSpace(d), strings.TrimSpace(res.Name)) {
			return integrations.StateDone, res.Name
		}
	}
	return integrations.StateNotDone, res.Name
}
