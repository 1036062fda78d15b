package runtime

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// A decision binds its repository: every decision and receipt the runtime
// signs names, in Repository, where its item's ticket lives, and a
// decision resting on a comment must rest on one of that ticket. A signed
// approval copied from one repository's issue-1 into another's (every
// repository has an issue-1), or one whose comment link points at another
// repository, issue or host, is then never honoured.

// TicketHosts are where tickets live when a reference does not say: the
// web host of GitHub (github.com, or a GitHub Enterprise host) and the Jira
// site (HOST[/PATH]); "" when unknown. A decision signed where GitHub's host
// is unknown names github.com; one verified where it is unknown is compared
// on its owner and repository only (check --repository HOST/OWNER/REPO
// names the host).
type TicketHosts struct {
	GitHub string
	Jira   string
}

// DefaultGitHubHost is where a GitHub reference without a host lives.
const DefaultGitHubHost = "github.com"

// WebHost is the web host of a GitHub REST root: github.com for
// api.github.com (and for ""), else the root's host[:port] without a
// leading "api." (api.SUB.ghe.com serves SUB.ghe.com).
func WebHost(baseURL string) string {
	if strings.TrimSpace(baseURL) == "" {
		return DefaultGitHubHost
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return DefaultGitHubHost
	}
	return strings.TrimPrefix(strings.ToLower(u.Host), "api.")
}

// JiraSite is a Jira base URL as a site: host[/path], lower-cased host,
// no trailing slash ("" for "").
func JiraSite(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")
}

// issueIDPattern is the poller's name for a GitHub issue's work item.
var issueIDPattern = regexp.MustCompile(`^issue-([1-9][0-9]*)$`)

// ticketOf is the item's ticket: its recorded reference; else, for the
// item's own loop, the one its id names (issue-N of the origin repository,
// or a Jira key); ok false when neither says.
func (r *Runtime) ticketOf(st *State) (integrations.Ref, bool) {
	if ref, err := ParseTicketRef(st.Ref); err == nil {
		return ref, true
	}
	if r.LoopDir != "" {
		return integrations.Ref{}, false
	}
	id := st.WorkItem
	if m := issueIDPattern.FindStringSubmatch(id); m != nil {
		owner, repo, ok := strings.Cut(r.expectedOrigin(), "/")
		if n, err := strconv.Atoi(m[1]); err == nil && ok {
			return integrations.Ref{System: "github", Owner: owner, Repo: repo, Number: n}, true
		}
	}
	if jiraKeyPattern.MatchString(id) {
		return integrations.Ref{System: "jira", Key: id}, true
	}
	return integrations.Ref{}, false
}

// expectedOrigin is OWNER/REPO the item's own GitHub tickets live in:
// check --repository's, else the repository config's.
func (r *Runtime) expectedOrigin() string {
	if _, owner, repo, ok := splitRepository(r.ExpectRepository); ok {
		return owner + "/" + repo
	}
	return r.Origin
}

// splitRepository reads [HOST/]OWNER/REPO.
func splitRepository(s string) (host, owner, repo string, ok bool) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	switch len(parts) {
	case 2:
		owner, repo = parts[0], parts[1]
	case 3:
		host, owner, repo = strings.ToLower(parts[0]), parts[1], parts[2]
	default:
		return "", "", "", false
	}
	return host, owner, repo, owner != "" && repo != ""
}

// CheckRepositoryName checks a check --repository value: [HOST/]OWNER/REPO.
func CheckRepositoryName(s string) error {
	host, owner, repo, ok := splitRepository(s)
	if !ok || (host != "" && !refHostPattern.MatchString(host)) || !refNamePattern.MatchString(owner) || !refNamePattern.MatchString(repo) {
		return fmt.Errorf("--repository %q: give the repository the work items are tracked in as OWNER/REPO or HOST/OWNER/REPO, such as github.com/acme/widgets", s)
	}
	return nil
}

// Home is where the item's ticket lives, as its decisions name it:
// HOST/OWNER/REPO for a GitHub ticket (the reference's host, else the
// configured web host), the Jira site for a Jira ticket; for the item's
// own loop under check --repository, that repository. "" when unknown.
func (r *Runtime) Home(st *State) string {
	ref, ok := r.ticketOf(st)
	if !ok {
		return ""
	}
	switch ref.System {
	case "github":
		host := ref.Host
		if eh, owner, repo, ok := splitRepository(r.ExpectRepository); ok && r.LoopDir == "" {
			ref.Owner, ref.Repo = owner, repo
			if eh != "" {
				host = eh
			}
		}
		if host == "" {
			host, _ = r.githubHost()
		}
		return strings.ToLower(host + "/" + ref.Owner + "/" + ref.Repo)
	case "jira":
		return r.Hosts.Jira
	}
	return ""
}

// sign binds d to st's walk — its work item, loop and repository — and
// signs it.
func (r *Runtime) sign(st *State, d *Decision) error {
	d.WorkItem, d.Loop, d.Repository = st.WorkItem, r.Graph.Name, r.Home(st)
	return r.signer().Sign(d)
}

// bindingFault says why a verified decision d does not belong to st's
// ticket ("" when it does): it names another repository, or rests on a
// comment of another host, repository or ticket; under strict, it names
// none although the item's repository is known.
func (r *Runtime) bindingFault(st *State, d *Decision, strict bool) string {
	home := r.Home(st)
	switch {
	case d.Repository == "" && home != "" && strict:
		return "is not bound to its repository (it was signed before decisions named theirs), and --recompute honours only bound decisions; re-sign it on the poller's host with `the-loop keys resign`"
	case d.Repository != "" && home != "" && !sameRepository(d.Repository, home, r.hostKnown(st)):
		return fmt.Sprintf("was recorded for %s, not %s", d.Repository, home)
	}
	where := d.Repository
	if where == "" {
		where = home
	}
	ref, _ := r.ticketOf(st)
	for _, u := range commentURLs(d) {
		if why := commentFault(u, where, ref); why != "" {
			return "rests on a comment " + why
		}
	}
	return ""
}

// hostKnown reports whether the verifier knows the host of the item's
// GitHub repository: configured (or its provider's), named by check
// --repository, or carried by the item's reference.
func (r *Runtime) hostKnown(st *State) bool {
	if _, known := r.githubHost(); known {
		return true
	}
	if h, _, _, ok := splitRepository(r.ExpectRepository); ok && h != "" && r.LoopDir == "" {
		return true
	}
	ref, ok := r.ticketOf(st)
	return ok && ref.Host != ""
}

// githubHost is GitHub's web host as this runtime knows it: the host of the
// GitHub provider it talks to (where comments come from), else the
// configured one (Hosts.GitHub); else github.com, not known.
func (r *Runtime) githubHost() (string, bool) {
	for _, p := range []integrations.Provider{r.CodeHost, r.Tracker} {
		if h, ok := p.(interface{ Host() string }); ok {
			if host := h.Host(); host != "" {
				return strings.ToLower(host), true
			}
			return DefaultGitHubHost, true
		}
	}
	if r.Hosts.GitHub != "" {
		return r.Hosts.GitHub, true
	}
	return DefaultGitHubHost, false
}

// sameRepository compares two repositories as decisions name them; without
// a known host, a GitHub repository (HOST/OWNER/REPO) by owner and
// repository only.
func sameRepository(a, b string, hostKnown bool) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
	return !hostKnown && len(pa) == 3 && len(pb) == 3 && strings.EqualFold(pa[1], pb[1]) && strings.EqualFold(pa[2], pb[2])
}

// commentURLs are the comment links a decision rests on: its own and its
// evidence's.
func commentURLs(d *Decision) []string {
	var out []string
	if d.CommentURL != "" {
		out = append(out, d.CommentURL)
	}
	if list, ok := d.Data["evidence"].([]any); ok {
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				if u, ok := m["url"].(string); ok && u != "" {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// commentFault says why link is not a comment of the ticket ref living in
// home ("" when it is, or when home is unknown). On GitHub that is
// https://HOST/OWNER/REPO/(issues|pull)/N[#anchor]; on Jira
// https://SITE/browse/KEY[?focusedCommentId=ID].
func commentFault(link, home string, ref integrations.Ref) string {
	if home == "" {
		return ""
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return fmt.Sprintf("whose link %q is not a web address", link)
	}
	at := strings.ToLower(u.Host) + u.EscapedPath()
	if ref.System == "jira" || !strings.Contains(home, "/") {
		want := strings.ToLower(home) + "/browse/" + ref.Key
		if at != want && !strings.EqualFold(at, want) {
			return fmt.Sprintf("at %s, not on %s at %s", link, ref.Key, home)
		}
		return ""
	}
	parts := strings.Split(at, "/")
	hparts := strings.Split(home, "/")
	if len(parts) != 5 || len(hparts) != 3 || u.RawQuery != "" ||
		!strings.EqualFold(parts[0], hparts[0]) || !strings.EqualFold(parts[1], hparts[1]) || !strings.EqualFold(parts[2], hparts[2]) ||
		(parts[3] != "issues" && parts[3] != "pull") {
		return fmt.Sprintf("at %s, which is not an issue or pull request of %s", link, home)
	}
	if n, err := strconv.Atoi(parts[4]); err != nil || (ref.Number > 0 && n != ref.Number) {
		return fmt.Sprintf("at %s, not on #%d of %s", link, ref.Number, home)
	}
	return ""
}
