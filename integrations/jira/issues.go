package jira

import (
	"context"
	"net/http"
	"slices"
	"strings"

	jira "github.com/andygrunwald/go-jira"

	"github.com/the-loop/the-loop/integrations"
)

// maxSummaryLen is Jira's limit on an issue summary.
const maxSummaryLen = 255

// maxLabelLen is Jira's limit on one label.
const maxLabelLen = 255

type issueDoc struct {
	ID     string `json:"id"`
	Key    string `json:"key"`
	Self   string `json:"self"`
	Fields struct {
		Summary     string     `json:"summary"`
		Description string     `json:"description"`
		Labels      []string   `json:"labels"`
		Status      *nameField `json:"status"`
		Reporter    *jira.User `json:"reporter"`
	} `json:"fields"`
}

type nameField struct {
	Name string `json:"name"`
}

type keyField struct {
	Key string `json:"key"`
}

// createFields is the REST v2 create document; parent.key is how Jira Cloud
// and Data Center 9+ put an issue under an epic.
type createFields struct {
	Project     keyField  `json:"project"`
	Summary     string    `json:"summary"`
	Description string    `json:"description,omitempty"`
	IssueType   nameField `json:"issuetype"`
	Labels      []string  `json:"labels,omitempty"`
	Parent      *keyField `json:"parent,omitempty"`
}

type createdDoc struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Self string `json:"self"`
}

type labelOp struct {
	Add    string `json:"add,omitempty"`
	Remove string `json:"remove,omitempty"`
}

// GetIssue reads an issue's summary, description, status, labels and reporter.
func (p *Provider) GetIssue(ctx context.Context, ref integrations.Ref) (integrations.Issue, error) {
	op := integrations.OpGetIssue
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Issue{}, err
	}
	var doc issueDoc
	path := "rest/api/2/issue/" + ref.Key + "?fields=summary,description,labels,status,reporter"
	if err := p.do(ctx, op, ref.Key, http.MethodGet, path, nil, &doc); err != nil {
		return integrations.Issue{}, err
	}
	return p.issueFrom(doc), nil
}

func (p *Provider) issueFrom(doc issueDoc) integrations.Issue {
	is := integrations.Issue{
		Ref:    integrations.Ref{System: System, Key: doc.Key},
		Key:    doc.Key,
		Title:  doc.Fields.Summary,
		Body:   doc.Fields.Description,
		Labels: doc.Fields.Labels,
		URL:    p.BrowseURL(doc.Key),
	}
	if doc.Fields.Status != nil {
		is.State = doc.Fields.Status.Name
	}
	if doc.Fields.Reporter != nil {
		is.Author = login(doc.Fields.Reporter)
	}
	return is
}

// CreateIssue creates an issue of in.IssueType (default Task) in in.Project,
// optionally under parent in.Parent. The project must be one of the
// configured ones; every key is checked before the request.
func (p *Provider) CreateIssue(ctx context.Context, in integrations.NewIssue) (integrations.Issue, error) {
	op := integrations.OpCreateIssue
	if err := ValidateProjectKey(in.Project); err != nil {
		return integrations.Issue{}, integrations.Invalidf(System, op, "%v (--project)", err)
	}
	if !slices.Contains(p.projects, in.Project) {
		return integrations.Issue{}, integrations.Invalidf(System, op, "project %s is not in integrations.jira.projects (%s); add it there or pick a configured one", in.Project, listOrNone(p.projects))
	}
	title := strings.TrimSpace(in.Title)
	if title == "" {
		return integrations.Issue{}, integrations.Invalidf(System, op, "the issue summary is empty (--title)")
	}
	if len([]rune(title)) > maxSummaryLen {
		return integrations.Issue{}, integrations.Invalidf(System, op, "the summary is longer than %d characters (--title)", maxSummaryLen)
	}
	if in.Repo != "" {
		return integrations.Issue{}, integrations.Invalidf(System, op, "OWNER/REPO is a GitHub field; a Jira issue takes a project key")
	}
	issueType := in.IssueType
	if issueType == "" {
		issueType = DefaultIssueType
	}
	if err := ValidateIssueType(issueType); err != nil {
		return integrations.Issue{}, integrations.Invalidf(System, op, "%v (--issue-type)", err)
	}
	fields := createFields{
		Project:     keyField{Key: in.Project},
		Summary:     title,
		Description: in.Body,
		IssueType:   nameField{Name: issueType},
	}
	if in.Parent != "" {
		if err := ValidateIssueKey(in.Parent); err != nil {
			return integrations.Issue{}, integrations.Invalidf(System, op, "parent: %v (--parent)", err)
		}
		fields.Parent = &keyField{Key: in.Parent}
	}
	labels, err := limits.CleanLabels(op, in.Labels)
	if err != nil {
		return integrations.Issue{}, err
	}
	fields.Labels = labels
	var created createdDoc
	body := map[string]any{"fields": fields}
	if err := p.do(ctx, op, in.Project, http.MethodPost, "rest/api/2/issue", body, &created); err != nil {
		return integrations.Issue{}, err
	}
	if err := ValidateIssueKey(created.Key); err != nil {
		return integrations.Issue{}, &integrations.APIError{System: System, Op: op, Target: in.Project, Kind: integrations.ErrMalformed, Message: "the created issue's key is not valid: " + err.Error()}
	}
	return integrations.Issue{
		Ref:    integrations.Ref{System: System, Key: created.Key},
		Key:    created.Key,
		Title:  title,
		Body:   in.Body,
		Labels: labels,
		URL:    p.BrowseURL(created.Key),
	}, nil
}

// EditIssueBody replaces the issue's description.
func (p *Provider) EditIssueBody(ctx context.Context, ref integrations.Ref, body string) error {
	op := integrations.OpEditIssue
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	doc := map[string]any{"fields": map[string]any{"description": body}}
	return p.do(ctx, op, ref.Key, http.MethodPut, "rest/api/2/issue/"+ref.Key, doc, nil)
}

// AddLabels adds labels (Jira labels cannot contain whitespace).
func (p *Provider) AddLabels(ctx context.Context, ref integrations.Ref, labels []string) error {
	op := integrations.OpAddLabels
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	clean, err := limits.CleanLabels(op, labels)
	if err != nil {
		return err
	}
	if len(clean) == 0 {
		return nil
	}
	ops := make([]labelOp, 0, len(clean))
	for _, l := range clean {
		ops = append(ops, labelOp{Add: l})
	}
	doc := map[string]any{"update": map[string]any{"labels": ops}}
	return p.do(ctx, op, ref.Key, http.MethodPut, "rest/api/2/issue/"+ref.Key, doc, nil)
}

// RemoveLabel removes one label (absent labels are not an error in Jira).
func (p *Provider) RemoveLabel(ctx context.Context, ref integrations.Ref, label string) error {
	op := integrations.OpRemoveLabel
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	clean, err := limits.CleanLabels(op, []string{label})
	if err != nil {
		return err
	}
	if len(clean) == 0 {
		return integrations.Invalidf(System, op, "the label to remove is empty")
	}
	doc := map[string]any{"update": map[string]any{"labels": []labelOp{{Remove: clean[0]}}}}
	return p.do(ctx, op, ref.Key, http.MethodPut, "rest/api/2/issue/"+ref.Key, doc, nil)
}

// CleanLabels trims and de-duplicates labels and refuses ones Jira cannot
// store (whitespace inside, too long).
func CleanLabels(labels []string) ([]string, error) {
	return limits.CleanLabels(integrations.OpAddLabels, labels)
}

func listOrNone(keys []string) string {
	if len(keys) == 0 {
		return "none configured"
	}
	return strings.Join(keys, ", ")
}

// login is the identity the loop authorizes: the Data Center user name, or
// the Cloud account id (Cloud no longer exposes user names).
func login(u *jira.User) string {
	if u == nil {
		return ""
	}
	if u.Name != "" {
		return u.Name
	}
	return u.AccountID
}
