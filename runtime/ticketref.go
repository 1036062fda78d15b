package runtime

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// The grammar of a stored ticket ref. It is the providers' own (package
// integrations/github and integrations/jira read the same strings the same
// way); FuzzParseTicketRef checks that the two never disagree.
var (
	refNamePattern  = regexp.MustCompile(`^[\w.-]+$`)
	refHostPattern  = regexp.MustCompile(`^[A-Za-z0-9.-]+(:[0-9]+)?$`)
	jiraKeyPattern  = regexp.MustCompile(`^[A-Z][A-Z0-9_]+-[1-9][0-9]*$`)
	refDigitPattern = regexp.MustCompile(`^[0-9]+$`)
)

// ParseTicketRef parses a stored ticket ref: github:[HOST/]OWNER/REPO#N or
// jira:KEY-N. Every part is checked: owner and repository names of
// letters, digits, '.', '-' and '_' (never "." or ".."), a host name with a
// dot, a number of digits only, a Jira key of the form PROJ-12. The host is
// lower-cased, and github.com spellings are the default host "".
func ParseTicketRef(s string) (integrations.Ref, error) {
	sys, rest, ok := strings.Cut(s, ":")
	if !ok {
		return integrations.Ref{}, fmt.Errorf("ticket ref %q has no system prefix (github: or jira:)", s)
	}
	switch sys {
	case "jira":
		if !jiraKeyPattern.MatchString(rest) {
			return integrations.Ref{}, fmt.Errorf("ticket ref %q: %q is not a Jira key such as PROJ-12", s, rest)
		}
		return integrations.Ref{System: "jira", Key: rest}, nil
	case "github":
		repoPart, num, ok := strings.Cut(rest, "#")
		if !ok {
			return integrations.Ref{}, fmt.Errorf("ticket ref %q has no #number", s)
		}
		n, err := strconv.Atoi(num)
		if !refDigitPattern.MatchString(num) || err != nil || n <= 0 {
			return integrations.Ref{}, fmt.Errorf("ticket ref %q has a bad number", s)
		}
		parts := strings.Split(repoPart, "/")
		ref := integrations.Ref{System: "github", Number: n}
		switch len(parts) {
		case 2:
			ref.Owner, ref.Repo = parts[0], parts[1]
		case 3:
			if !refHostPattern.MatchString(parts[0]) || !strings.Contains(parts[0], ".") {
				return integrations.Ref{}, fmt.Errorf("ticket ref %q: %q is not a host name", s, parts[0])
			}
			ref.Host, ref.Owner, ref.Repo = githubHost(parts[0]), parts[1], parts[2]
		default:
			return integrations.Ref{}, fmt.Errorf("ticket ref %q: expected github:owner/repo#n", s)
		}
		for _, name := range []string{ref.Owner, ref.Repo} {
			if !refNamePattern.MatchString(name) || name == "." || name == ".." {
				return integrations.Ref{}, fmt.Errorf("ticket ref %q: %q is not an owner or repository name", s, name)
			}
		}
		return ref, nil
	}
	return integrations.Ref{}, fmt.Errorf("ticket ref %q: unknown system %q", s, sys)
}

// githubHost lower-cases a host and maps github.com spellings to "".
func githubHost(h string) string {
	switch h = strings.ToLower(h); h {
	case "github.com", "www.github.com", "api.github.com":
		return ""
	}
	return h
}
