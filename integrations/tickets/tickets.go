// Package tickets creates tickets and lists the configured Jira projects:
// the one core behind `the-loop ticket create|projects` and the MCP tools
// ticket_create and ticket_projects. Every check that needs no request runs
// before the first request.
package tickets

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
)

// CreateOptions is one ticket to create.
type CreateOptions struct {
	// System is "github" or "jira".
	System string `json:"system"`
	// Repo is OWNER/REPO (github).
	Repo string `json:"repo,omitempty"`
	// Project is the Jira project key; it must be in integrations.jira.projects.
	Project string   `json:"project,omitempty"`
	Title   string   `json:"title"`
	Body    string   `json:"body,omitempty"`
	Labels  []string `json:"labels,omitempty"`
	// IssueType is the Jira issue type (default Task).
	IssueType string `json:"issueType,omitempty"`
	// Parent is the Jira parent (epic) key, set as fields.parent.key.
	Parent string `json:"parent,omitempty"`
	// MirrorOf is a GitHub issue the new Jira issue mirrors: the Jira issue
	// gets the the-loop-mirror label and a description opening with the
	// GitHub URL.
	MirrorOf string `json:"mirrorOf,omitempty"`
	// MirrorTracker, when set, is the GitHub provider used to name the new
	// Jira key in the mirrored GitHub issue's body.
	MirrorTracker integrations.Provider `json:"-"`
}

// Created is the new ticket.
type Created struct {
	System string `json:"system"`
	// Key is PROJ-12 (jira) or OWNER/REPO#12 (github).
	Key string `json:"key"`
	// Number is the GitHub issue number (0 for jira).
	Number int    `json:"number"`
	URL    string `json:"url"`
}

// OptionError is a refused option: Flag names the CLI flag (the MCP tool
// parameter has the same name without dashes).
type OptionError struct {
	Flag string
	Msg  string
}

func (e *OptionError) Error() string { return e.Flag + ": " + e.Msg }

// Unwrap makes an OptionError an integrations.ErrInvalid.
func (e *OptionError) Unwrap() error { return integrations.ErrInvalid }

// MirrorLinkError says the Jira mirror was created but the GitHub issue body
// could not be updated to name it.
type MirrorLinkError struct {
	Created Created
	GitHub  string
	Err     error
}

func (e *MirrorLinkError) Error() string {
	return fmt.Sprintf("created %s (%s) but could not name it in GitHub issue %s: %v", e.Created.Key, e.Created.URL, e.GitHub, e.Err)
}

// Unwrap returns the GitHub error.
func (e *MirrorLinkError) Unwrap() error { return e.Err }

// Projects returns the configured Jira project keys.
func Projects(cfg *config.Config) []string {
	if cfg == nil {
		return nil
	}
	return slices.Clone(cfg.Integrations.Jira.Projects)
}

// Create validates opts against cfg, creates the ticket through p, and for a
// Jira mirror names the new key in the GitHub issue (through
// opts.MirrorTracker). When only that last step fails, the ticket exists:
// Created is filled and the error is a *MirrorLinkError.
func Create(ctx context.Context, cfg *config.Config, p integrations.Provider, opts CreateOptions) (Created, error) {
	o, err := Validate(cfg, opts)
	if err != nil {
		return Created{}, err
	}
	if p == nil {
		return Created{}, fmt.Errorf("ticket create: no %s provider is configured", o.System)
	}
	if p.Name() != o.System {
		return Created{}, fmt.Errorf("ticket create: --system %s but the provider is %s", o.System, p.Name())
	}
	var mirror integrations.Ref
	if o.MirrorOf != "" {
		mirror, _ = github.ParseRef(o.MirrorOf)
		if t := o.MirrorTracker; t != nil {
			if t.Name() != github.System || !integrations.Supports(t, integrations.OpGetIssue) || !integrations.Supports(t, integrations.OpEditIssue) {
				return Created{}, &OptionError{Flag: "--mirror-of", Msg: "the mirror tracker must be a GitHub provider that reads and edits issues"}
			}
		}
	}
	is, err := p.CreateIssue(ctx, integrations.NewIssue{
		Repo: o.Repo, Project: o.Project, Title: o.Title, Body: o.Body,
		Labels: o.Labels, IssueType: o.IssueType, Parent: o.Parent,
	})
	if err != nil {
		return Created{}, fmt.Errorf("ticket create: %w", err)
	}
	created := Created{System: o.System, Key: is.Key, URL: is.URL}
	if o.System == github.System {
		created.Number = is.Number
	}
	if o.MirrorOf != "" && o.MirrorTracker != nil {
		if err := nameMirror(ctx, o.MirrorTracker, mirror, created); err != nil {
			return created, &MirrorLinkError{Created: created, GitHub: mirror.String(), Err: err}
		}
	}
	return created, nil
}

// nameMirror appends "Jira: KEY (URL)" to the GitHub issue body unless the
// body already names the key.
func nameMirror(ctx context.Context, gh integrations.Provider, ref integrations.Ref, created Created) error {
	is, err := gh.GetIssue(ctx, ref)
	if err != nil {
		return err
	}
	if strings.Contains(is.Body, created.Key) {
		return nil
	}
	body := strings.TrimRight(is.Body, " \t\r\n")
	if body != "" {
		body += "\n\n"
	}
	body += fmt.Sprintf("Jira: [%s](%s)\n", created.Key, created.URL)
	return gh.EditIssueBody(ctx, ref, body)
}
