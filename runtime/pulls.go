package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kinds of the records a work item keeps about its pull requests.
const (
	// KindRepos is the declaration of the repositories a work item needs
	// code in (`the-loop graph repos`).
	KindRepos = "repos"
	// KindReadyToShip is what the ready-to-ship hook read from GitHub when
	// it last passed on a node: the pull requests and their head commits.
	KindReadyToShip = "ready-to-ship"
	// ViaMerge attributes an inner loop's approval to the merge of its
	// pull request by an authorized person.
	ViaMerge = "merge"
	// ViaTool attributes an act to an MCP caller.
	ViaTool = "mcp"
)

// Pull request states a link records.
const (
	PullOpen   = "open"
	PullMerged = "merged"
	PullClosed = "closed"
)

// PullRequestLink is one pull request linked to a work item.
type PullRequestLink struct {
	// Repo is OWNER/REPO of the pull request.
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	URL    string `json:"url,omitempty"`
	// Head and Base are the branches it merges from and into.
	Head string `json:"head,omitempty"`
	Base string `json:"base,omitempty"`
	// State is open, merged or closed (without merging).
	State string `json:"state"`
	// InnerLoop is the folder of its pdlc-pr-loop under the spec folder
	// (pr-loops/pr-7, pr-loops/octo__infra/pr-7); "" when it walks none
	// (a pull request that only lands the spec chain, or only carries the
	// discussion of the outer loop).
	InnerLoop string `json:"innerLoop,omitempty"`
	// Surface is true for the pull request the outer loop's artifacts are
	// iterated on (outer-loop-on-pull-request).
	Surface  bool   `json:"surface,omitempty"`
	LinkedAt string `json:"linkedAt,omitempty"`
	LinkedBy string `json:"linkedBy,omitempty"`
}

// Key is OWNER/REPO#N.
func (l *PullRequestLink) Key() string { return fmt.Sprintf("%s#%d", l.Repo, l.Number) }

// SameRepo reports whether two OWNER/REPO names are the same repository
// (GitHub compares them case-insensitively).
func SameRepo(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) }

// CheckRepo validates OWNER/REPO: two segments of letters, digits, '.',
// '_' and '-', neither "." nor "..".
func CheckRepo(repo string) error {
	parts := strings.Split(repo, "/")
	if len(parts) != 2 {
		return fmt.Errorf("repository %s must be OWNER/REPO", strconv.Quote(repo))
	}
	for _, p := range parts {
		if !RepoSegment(p) {
			return fmt.Errorf("repository %s: %s is not a usable owner or repository name (letters, digits, '.', '_' and '-')", strconv.Quote(repo), strconv.Quote(p))
		}
	}
	return nil
}

// RepoSegment reports whether s can be an owner or repository name: one
// or more letters, digits, '.', '_' and '-', and neither "." nor "..".
func RepoSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// RepoStateKey is the folder an inner loop of repo lives under: OWNER__REPO.
func RepoStateKey(repo string) (string, error) {
	if err := CheckRepo(repo); err != nil {
		return "", err
	}
	return strings.Replace(repo, "/", "__", 1), nil
}

// PRLoopsDir holds the inner loops under a work item's spec folder.
const PRLoopsDir = "pr-loops"

// InnerLoopDir is the folder of pull request repo#n's inner loop under the
// spec folder: pr-loops/pr-<n> for the origin repository's own pull
// request, pr-loops/<owner>__<repo>/pr-<n> for any other (a number is
// unique only within its repository).
func InnerLoopDir(origin, repo string, n int) (string, error) {
	if n <= 0 {
		return "", fmt.Errorf("pull request number %d is not positive", n)
	}
	if err := CheckRepo(repo); err != nil {
		return "", err
	}
	if origin != "" && SameRepo(origin, repo) {
		return fmt.Sprintf("%s/pr-%d", PRLoopsDir, n), nil
	}
	key, _ := RepoStateKey(repo)
	return fmt.Sprintf("%s/%s/pr-%d", PRLoopsDir, key, n), nil
}

// NormalRepos validates and de-duplicates a set of OWNER/REPO names
// (case-insensitively, keeping the first spelling), in the order given.
func NormalRepos(repos []string) ([]string, error) {
	var out []string
	for _, r := range repos {
		r = strings.TrimSpace(r)
		if err := CheckRepo(r); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(out, func(o string) bool { return SameRepo(o, r) }) {
			out = append(out, r)
		}
	}
	return out, nil
}

// DeclaredRepos returns the repositories the declaration d names (nil for
// no declaration; an empty, non-nil list for a declaration of none).
func DeclaredRepos(d *Decision) []string {
	if d == nil {
		return nil
	}
	out := []string{}
	switch v := d.Data["repositories"].(type) {
	case []string:
		out = append(out, v...)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// ErrWouldReduceWork refuses a repository declaration that would drop a
// repository the work item must have a pull request in, from a caller that
// may only add work.
var ErrWouldReduceWork = errors.New("the declaration would remove work")

// ReposResult is a declaration made (or, with no change asked, read).
type ReposResult struct {
	WorkItem string `json:"workItem"`
	// Declared is true when a declaration exists after the call.
	Declared bool `json:"declared"`
	// Repositories are the declared repositories (empty: none declared,
	// or declared none when Declared).
	Repositories []string `json:"repositories"`
	// Previous is the declaration the call replaced.
	Previous []string `json:"previous,omitempty"`
	// Changed is false when the call asked for what was already declared.
	Changed bool   `json:"changed"`
	By      string `json:"by,omitempty"`
	At      string `json:"at,omitempty"`
}

// ReposOptions configure DeclareRepos.
type ReposOptions struct {
	// Actor is who declares (default "(shell)").
	Actor string
	// Via is cli or mcp.
	Via string
	// AddOnly refuses a declaration that drops a repository the item must
	// have a pull request in: a declared one, or the origin repository when
	// nothing is declared (an MCP caller may only add work).
	AddOnly bool
}

// DeclareRepos replaces the declaration of the repositories work item id
// needs code in with repos (the full set; empty declares none). The
// declaration is signed and kept in the state, never read from an
// artifact an agent edits.
func (r *Runtime) DeclareRepos(ctx context.Context, id string, repos []string, o ReposOptions) (ReposResult, error) {
	if err := ValidateID(id); err != nil {
		return ReposResult{}, err
	}
	norm, err := NormalRepos(repos)
	if err != nil {
		return ReposResult{}, err
	}
	if o.Actor == "" {
		o.Actor = "(shell)"
	}
	if o.Via == "" {
		o.Via = ViaCLI
	}
	res := ReposResult{WorkItem: id, Declared: true, Repositories: append([]string{}, norm...)}
	err = r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		view, _ := r.view(st, false)
		prev := DeclaredRepos(view.State.Repos)
		res.Previous = prev
		if o.AddOnly {
			if err := r.checkAddOnly(prev, view.State.Repos != nil, norm); err != nil {
				return nil, err
			}
		}
		if view.State.Repos != nil && sameRepoSet(prev, norm) {
			res.By, res.At = view.State.Repos.By, view.State.Repos.At
			return nil, errNoSave
		}
		list := make([]any, len(norm))
		for i, s := range norm {
			list[i] = s
		}
		data := map[string]any{"repositories": list}
		if o.Via == ViaCLI {
			data = r.operatorOS().stamp(data)
		}
		d := &Decision{WorkItem: st.WorkItem, Loop: r.Graph.Name, Node: "implementation", Kind: KindRepos, Via: o.Via, By: o.Actor, At: Now(), Data: data}
		if err := r.sign(st, d); err != nil {
			return nil, fmt.Errorf("sign the repository declaration: %w", err)
		}
		st.Repos = d
		res.Changed, res.By, res.At = true, d.By, d.At
		ev := map[string]any{"repositories": norm, "previous": prev, "by": o.Actor, "via": o.Via}
		if o.Via == ViaCLI {
			ev = r.operatorOS().stamp(ev)
		}
		return []EventRecord{{Name: "graph.repos_declared", Data: ev}}, nil
	})
	if errors.Is(err, errNoSave) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("declare the repositories of %s: %w", id, err)
	}
	return res, nil
}

// checkAddOnly refuses a declaration next that drops a repository the item
// must have a pull request in today.
func (r *Runtime) checkAddOnly(prev []string, declared bool, next []string) error {
	required := prev
	if !declared {
		required = nil
		if r.Origin != "" {
			required = []string{r.Origin}
		}
	}
	for _, req := range required {
		if !slices.ContainsFunc(next, func(n string) bool { return SameRepo(n, req) }) {
			return fmt.Errorf("%w: %s must keep %s (declared repositories: %s); only an operator's `the-loop graph repos` may remove one",
				ErrWouldReduceWork, "the declaration", req, orNone(required))
		}
	}
	return nil
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func sameRepoSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y string) bool { return SameRepo(x, y) }) {
			return false
		}
	}
	return true
}

// ReadRepos reports the declaration of id as the runtime honours it.
func (r *Runtime) ReadRepos(ctx context.Context, id string) (ReposResult, error) {
	st, _, err := r.Persist.Load(ctx, id)
	if err != nil {
		return ReposResult{}, err
	}
	view, _ := r.view(st, false)
	res := ReposResult{WorkItem: id, Repositories: []string{}}
	if d := view.State.Repos; d != nil {
		res.Declared, res.Repositories, res.By, res.At = true, DeclaredRepos(d), d.By, d.At
	}
	return res, nil
}

// LinkPull records link on work item id: a new link is added, a known one
// (same repository and number) keeps its inner loop and surface flag
// unless link sets them, and takes link's other fields. It returns the
// link as recorded and whether it is new.
func (r *Runtime) LinkPull(ctx context.Context, id string, link PullRequestLink) (PullRequestLink, bool, error) {
	if err := CheckRepo(link.Repo); err != nil {
		return link, false, err
	}
	var out PullRequestLink
	added := false
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		for _, l := range st.PullRequests {
			if SameRepo(l.Repo, link.Repo) && l.Number == link.Number {
				mergeLink(l, link)
				out = *l
				return nil, nil
			}
		}
		if link.LinkedAt == "" {
			link.LinkedAt = Now()
		}
		if link.State == "" {
			link.State = PullOpen
		}
		l := link
		st.PullRequests = append(st.PullRequests, &l)
		out, added = l, true
		return []EventRecord{{Name: "graph.pull_request_linked", Data: map[string]any{"pullRequest": l.Key(), "innerLoop": l.InnerLoop, "surface": l.Surface, "by": l.LinkedBy}}}, nil
	})
	if err != nil {
		return out, false, fmt.Errorf("link %s#%d to %s: %w", link.Repo, link.Number, id, err)
	}
	return out, added, nil
}

func mergeLink(l *PullRequestLink, in PullRequestLink) {
	if in.URL != "" {
		l.URL = in.URL
	}
	if in.Head != "" {
		l.Head = in.Head
	}
	if in.Base != "" {
		l.Base = in.Base
	}
	if in.State != "" {
		l.State = in.State
	}
	if in.InnerLoop != "" {
		l.InnerLoop = in.InnerLoop
	}
	l.Surface = l.Surface || in.Surface
}

// FindPull returns the link of repo#n on st (nil when none).
func FindPull(st *State, repo string, n int) *PullRequestLink {
	for _, l := range st.PullRequests {
		if SameRepo(l.Repo, repo) && l.Number == n {
			return l
		}
	}
	return nil
}

// SetPullState records that the linked pull request repo#n is now state
// (open, merged, closed); an unknown link is an error.
func (r *Runtime) SetPullState(ctx context.Context, id, repo string, n int, state string) error {
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		l := FindPull(st, repo, n)
		if l == nil {
			return nil, fmt.Errorf("%s#%d is not linked to %s", repo, n, id)
		}
		if l.State == state {
			return nil, errNoSave
		}
		l.State = state
		return []EventRecord{{Name: "graph.pull_request_" + state, Data: map[string]any{"pullRequest": l.Key()}}}, nil
	})
	if errors.Is(err, errNoSave) {
		return nil
	}
	return err
}
