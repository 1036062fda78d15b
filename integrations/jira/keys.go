package jira

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
)

var (
	projectKeyPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)
	issueKeyPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9_]+-[1-9][0-9]*$`)
	issueTypePattern  = lazyre.New(`^[A-Za-z][A-Za-z0-9 _-]{0,59}$`)
)

// ValidateProjectKey checks a project key (e.g. PROJ): an upper-case letter
// followed by upper-case letters, digits or underscores.
func ValidateProjectKey(key string) error {
	if !projectKeyPattern.MatchString(key) {
		//lint:ignore ST1005 the message opens with the product's name, Jira
		return fmt.Errorf("Jira project key %q is not valid: use upper-case letters, digits and _ starting with a letter, e.g. PROJ", key)
	}
	return nil
}

// ValidateIssueKey checks an issue key (e.g. PROJ-12).
func ValidateIssueKey(key string) error {
	if !issueKeyPattern.MatchString(key) {
		//lint:ignore ST1005 the message opens with the product's name, Jira
		return fmt.Errorf("Jira issue key %q is not valid: use PROJECT-NUMBER, e.g. PROJ-12", key)
	}
	return nil
}

// ProjectOf returns the project part of a valid issue key.
func ProjectOf(issueKey string) string {
	i := strings.LastIndex(issueKey, "-")
	if i < 0 {
		return ""
	}
	return issueKey[:i]
}

// ParseRef parses jira:KEY-1, a bare KEY-1, or a browse URL
// (https://SITE/browse/KEY-1).
func ParseRef(s string) (integrations.Ref, error) {
	in := strings.TrimSpace(s)
	key := strings.TrimPrefix(in, "jira:")
	if strings.HasPrefix(in, "https://") || strings.HasPrefix(in, "http://") {
		u, err := url.Parse(in)
		if err != nil {
			return integrations.Ref{}, fmt.Errorf("ref %q is not a valid URL", s)
		}
		i := strings.LastIndex(u.Path, "/browse/")
		if i < 0 {
			return integrations.Ref{}, fmt.Errorf("URL %q is not a Jira browse URL (https://SITE/browse/KEY-1)", s)
		}
		key = strings.TrimSuffix(u.Path[i+len("/browse/"):], "/")
	}
	if err := ValidateIssueKey(key); err != nil {
		return integrations.Ref{}, fmt.Errorf("ref %q: %w", s, err)
	}
	return integrations.Ref{System: System, Key: key}, nil
}

// ValidateIssueType checks an issue type name (Story, Task, Bug, Epic...).
func ValidateIssueType(name string) error {
	if !issueTypePattern().MatchString(name) {
		return fmt.Errorf("issue type %q is not a type name such as Story, Task, Bug or Epic", name)
	}
	return nil
}
