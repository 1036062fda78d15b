package tickets

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
)

// maxGitHubLabel is GitHub's limit on a label name.
const maxGitHubLabel = 50

// Validate checks opts against cfg without any request and returns them
// normalised: trimmed, labels de-duplicated, the Jira issue type defaulted,
// and for a mirror the label added and the description prefixed with the
// GitHub issue URL.
func Validate(cfg *config.Config, opts CreateOptions) (CreateOptions, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	o := opts
	o.System = strings.TrimSpace(o.System)
	o.Title = strings.TrimSpace(o.Title)
	o.Repo = strings.TrimSpace(o.Repo)
	o.Project = strings.TrimSpace(o.Project)
	o.Parent = strings.TrimSpace(o.Parent)
	o.IssueType = strings.TrimSpace(o.IssueType)
	o.MirrorOf = strings.TrimSpace(o.MirrorOf)
	if o.Title == "" {
		return o, &OptionError{Flag: "--title", Msg: "the title is empty"}
	}
	switch o.System {
	case github.System:
		return validateGitHub(o)
	case jira.System:
		return validateJira(cfg, o)
	case "":
		return o, &OptionError{Flag: "--system", Msg: "required: github or jira"}
	}
	return o, &OptionError{Flag: "--system", Msg: fmt.Sprintf("%q is not one of github, jira", o.System)}
}

func validateGitHub(o CreateOptions) (CreateOptions, error) {
	if o.Repo == "" {
		return o, &OptionError{Flag: "--repo", Msg: "required with --system github (OWNER/REPO)"}
	}
	if _, _, err := github.ParseRepo(o.Repo); err != nil {
		return o, &OptionError{Flag: "--repo", Msg: err.Error()}
	}
	for _, f := range [][2]string{{"--project", o.Project}, {"--issue-type", o.IssueType}, {"--parent", o.Parent}} {
		if f[1] != "" {
			return o, &OptionError{Flag: f[0], Msg: "applies only to --system jira"}
		}
	}
	if o.MirrorOf != "" {
		return o, &OptionError{Flag: "--mirror-of", Msg: "makes a Jira mirror of a GitHub issue; use it with --system jira"}
	}
	labels := make([]string, 0, len(o.Labels))
	for _, l := range o.Labels {
		l = strings.TrimSpace(l)
		if l == "" || slices.Contains(labels, l) {
			continue
		}
		if len([]rune(l)) > maxGitHubLabel {
			return o, &OptionError{Flag: "--labels", Msg: fmt.Sprintf("label %q is longer than %d characters", l, maxGitHubLabel)}
		}
		labels = append(labels, l)
	}
	o.Labels = labels
	return o, nil
}

func validateJira(cfg *config.Config, o CreateOptions) (CreateOptions, error) {
	if o.Repo != "" {
		return o, &OptionError{Flag: "--repo", Msg: "applies only to --system github; a Jira ticket takes --project KEY"}
	}
	if o.Project == "" {
		return o, &OptionError{Flag: "--project", Msg: "required with --system jira (a key from integrations.jira.projects)"}
	}
	if err := jira.ValidateProjectKey(o.Project); err != nil {
		return o, &OptionError{Flag: "--project", Msg: err.Error()}
	}
	configured := cfg.Integrations.Jira.Projects
	if !slices.Contains(configured, o.Project) {
		list := "none are configured"
		if len(configured) > 0 {
			list = "configured: " + strings.Join(configured, ", ")
		}
		return o, &OptionError{Flag: "--project", Msg: fmt.Sprintf("project %s is not in integrations.jira.projects (%s); add it there or use a configured one", o.Project, list)}
	}
	if o.Parent != "" {
		if err := jira.ValidateIssueKey(o.Parent); err != nil {
			return o, &OptionError{Flag: "--parent", Msg: err.Error()}
		}
	}
	if o.IssueType == "" {
		o.IssueType = jira.DefaultIssueType
	}
	if err := jira.ValidateIssueType(o.IssueType); err != nil {
		return o, &OptionError{Flag: "--issue-type", Msg: err.Error()}
	}
	if o.MirrorOf != "" {
		ref, err := github.ParseRef(o.MirrorOf)
		if err != nil {
			return o, &OptionError{Flag: "--mirror-of", Msg: err.Error() + " (want the GitHub issue URL)"}
		}
		url := o.MirrorOf
		if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
			url = github.IssueURL(ref)
		}
		o.Labels = append(o.Labels, integrations.MirrorLabel)
		if !strings.HasPrefix(o.Body, url) {
			o.Body = strings.TrimSpace(url + "\n\n" + o.Body)
		}
	}
	labels, err := jira.CleanLabels(o.Labels)
	if err != nil {
		msg := err.Error()
		var api *integrations.APIError
		if errors.As(err, &api) {
			msg = api.Message
		}
		return o, &OptionError{Flag: "--labels", Msg: msg}
	}
	o.Labels = labels
	return o, nil
}
