// Package relations reads the dependency relationships between work items
// across trackers: the providers' native relations (sub-issues, issue
// dependencies, Jira links), references written in a ticket's body (task
// lists, "Blocked by:" lines) and qualified references from one tracker to
// another (github:OWNER/REPO#12, jira:PROJ-12).
package relations

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
)

// gitHubDotCom marks a ref parsed from a github.com URL, so it is never
// mistaken for an issue on a configured GitHub Enterprise server.
const gitHubDotCom = "github.com"

// Parse reads a ticket reference written in the ticket home (a body line, a
// task-list item, a link). Accepted forms:
//
//	github:OWNER/REPO#N        an issue on the configured GitHub
//	github:HOST/OWNER/REPO#N   an issue on that GitHub host
//	jira:KEY-N                 a Jira issue
//	https://HOST/OWNER/REPO/issues/N, https://SITE/browse/KEY-N
//
// and, relative to a GitHub home, #N (same repository) and OWNER/REPO#N
// (same host); relative to a Jira home, KEY-N.
func Parse(s string, home integrations.Ref) (integrations.Ref, error) {
	in := strings.TrimSpace(s)
	lower := strings.ToLower(in)
	switch {
	case in == "":
		return integrations.Ref{}, fmt.Errorf("empty reference")
	case strings.HasPrefix(lower, "github:"):
		return github.ParseRef("github:" + in[len("github:"):])
	case strings.HasPrefix(lower, "jira:"):
		return jira.ParseRef("jira:" + in[len("jira:"):])
	case strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://"):
		return parseURL(in)
	case home.System == "jira":
		if ref, err := jira.ParseRef(in); err == nil {
			return ref, nil
		}
	case strings.HasPrefix(in, "#") && home.Owner != "":
		ref, err := github.ParseRef(home.Owner + "/" + home.Repo + in)
		ref.Host = home.Host
		return ref, err
	case strings.Contains(in, "#"):
		if ref, err := github.ParseRef(in); err == nil && strings.Count(in, "/") == 1 {
			ref.Host = home.Host
			return ref, nil
		}
	}
	return integrations.Ref{}, fmt.Errorf("%q is not a ticket reference (use #12, OWNER/REPO#12, github:OWNER/REPO#12, jira:PROJ-12 or the ticket's URL)", in)
}

func parseURL(s string) (integrations.Ref, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return integrations.Ref{}, fmt.Errorf("%q is not a valid URL", s)
	}
	if strings.Contains(u.Path, "/browse/") {
		return jira.ParseRef(s)
	}
	ref, err := github.ParseRef(s)
	if err != nil {
		return integrations.Ref{}, err
	}
	if ref.Host == "" {
		ref.Host = gitHubDotCom
	}
	return ref, nil
}

// Key is the identity of a ref: refs naming the same ticket have the same
// key (GitHub owner, repository and host are case-insensitive).
func Key(ref integrations.Ref) string {
	if ref.System == "jira" {
		return "jira:" + strings.ToUpper(ref.Key)
	}
	var b strings.Builder
	b.Grow(len(ref.Host) + len(ref.Owner) + len(ref.Repo) + 16)
	b.WriteString("github:")
	if ref.Host != "" {
		b.WriteString(strings.ToLower(ref.Host))
		b.WriteByte('/')
	}
	b.WriteString(strings.ToLower(ref.Owner))
	b.WriteByte('/')
	b.WriteString(strings.ToLower(ref.Repo))
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(ref.Number))
	return b.String()
}

// Short renders ref as briefly as it reads from home: #N in the same
// repository, OWNER/REPO#N on the same host, KEY-N between Jira issues,
// and the qualified form across trackers or hosts.
func Short(ref, home integrations.Ref) string {
	switch {
	case ref.System == "jira" && home.System == "jira":
		return ref.Key
	case ref.System == "jira" || home.System == "jira" || !strings.EqualFold(ref.Host, home.Host):
		return ref.String()
	case strings.EqualFold(ref.Owner, home.Owner) && strings.EqualFold(ref.Repo, home.Repo):
		return fmt.Sprintf("#%d", ref.Number)
	}
	return fmt.Sprintf("%s/%s#%d", ref.Owner, ref.Repo, ref.Number)
}
