package work

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
	"github.com/the-loop/the-loop/runtime/markdown"
)

const (
	// HookInnerLoops holds the outer loop until the inner loops finish.
	HookInnerLoops = "await-inner-loops"
	// prLoopsDir holds one state folder per pull request's inner loop.
	prLoopsDir = "pr-loops"
	// innerDone is the inner loop's node that counts as finished.
	innerDone = "complete"
	// innerApproval is the inner loop's human gate.
	innerApproval = "pr-approval"
)

// innerLoop is one pull request's inner-loop state found on disk.
type innerLoop struct {
	label   string // "pr-16" or "octo__infra/pr-7"
	key     string // "" for the origin repository, else the owner__repo folder
	current string // "" when the state is unreadable: not finished
}

// AwaitInnerLoops holds the outer loop until every pull request's inner
// loop has reached `complete` and every repository the execution log
// declares (`repos:` front matter) has at least one inner loop.
//
// The origin repository (which owns the top-level pr-loops/pr-<n>/ folders)
// is the `originRepo` parameter when given, else the work item's GitHub
// ticket repository; when neither is known, top-level loops cannot be
// attributed and the wait message says so.
func AwaitInnerLoops(hc *runtime.HookContext) (runtime.Result, error) {
	origin, err := originRepo(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()

	loops, err := findInnerLoops(d, hc)
	if err != nil {
		return runtime.Result{}, err
	}
	declared, derr := declaredRepos(d)
	if derr != nil {
		r := runtime.Blocked(HookInnerLoops, runtime.Errorf(d.Rel(artifacts.ExecutionLog),
			"%s declares a repository the-loop cannot use: %v. `repos:` entries are <owner>/<repo>.", artifacts.ExecutionLog, derr))
		r.Data = map[string]any{"declared": len(declared)}
		return r, nil
	}

	var pending []string
	topLevel := false
	byKey := map[string]bool{}
	for _, l := range loops {
		if l.current != innerDone {
			pending = append(pending, l.label)
		}
		if l.key == "" {
			topLevel = true
		} else {
			byKey[strings.ToLower(l.key)] = true
		}
	}
	originKey := ""
	if origin != "" {
		originKey, _ = repoStateKey(origin) // validated by originRepo
	}
	var missing []string
	for _, repo := range declared {
		key, _ := repoStateKey(repo) // validated by declaredRepos
		has := byKey[strings.ToLower(key)]
		if originKey != "" && strings.EqualFold(key, originKey) {
			has = has || topLevel
		}
		if !has {
			missing = append(missing, repo)
		}
	}

	if len(pending) == 0 && len(missing) == 0 {
		return runtime.OK(HookInnerLoops, map[string]any{"inner_loops": len(loops), "declared": len(declared)}), nil
	}
	var parts []string
	if len(pending) > 0 {
		parts = append(parts, fmt.Sprintf("waiting for %d inner loop(s) to finish: %s", len(pending), strings.Join(pending, ", ")))
	}
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d declared repository(ies) have no inner loop yet: %s", len(missing), strings.Join(missing, ", ")))
		if origin == "" && topLevel {
			parts = append(parts, "the origin repository is unknown (set `ticketing.github.owner`/`.repo`), so pr-loops/pr-<n>/ cannot be attributed to a repository")
		}
	}
	r := runtime.Waiting(HookInnerLoops, strings.Join(parts, "; ")+
		" — each pull request completes its pdlc-pr-loop (docs/specs/<id>/pr-loops/) before the work item moves past implementation")
	r.Data = map[string]any{"inner_loops": len(loops), "pending": pending, "missing_repos": missing}
	return r, nil
}

// originRepo returns "owner/repo" of the origin repository, or "" when it
// is unknown.
func originRepo(hc *runtime.HookContext) (string, error) {
	if p := strings.TrimSpace(hc.Param("originRepo")); p != "" {
		if _, err := repoStateKey(p); err != nil {
			return "", fmt.Errorf("originRepo: %w", err)
		}
		return p, nil
	}
	ref := hc.TicketRef
	if ref.System == "github" && ref.Owner != "" && ref.Repo != "" {
		r := ref.Owner + "/" + ref.Repo
		if _, err := repoStateKey(r); err == nil {
			return r, nil
		}
	}
	return "", nil
}

// findInnerLoops lists pr-loops/pr-*/ and pr-loops/*/pr-*/ folders holding
// a state file, sorted by label.
func findInnerLoops(d *specdir.Dir, hc *runtime.HookContext) ([]innerLoop, error) {
	if !d.Exists() {
		return nil, nil
	}
	top, err := d.Subdirs(prLoopsDir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []innerLoop
	add := func(dir, label, key string) {
		if seen[label] {
			return
		}
		if cur, ok := innerState(d, hc, dir, label); ok {
			seen[label] = true
			out = append(out, innerLoop{label: label, key: key, current: cur})
		}
	}
	for _, name := range top {
		if strings.HasPrefix(name, "pr-") {
			add(path.Join(prLoopsDir, name), name, "")
		}
		sub, err := d.Subdirs(path.Join(prLoopsDir, name))
		if err != nil {
			return nil, err
		}
		for _, s := range sub {
			if strings.HasPrefix(s, "pr-") {
				add(path.Join(prLoopsDir, name, s), name+"/"+s, name)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].label < out[j].label })
	return out, nil
}

// innerApproved reports whether an inner loop's pull-request approval is a
// decision this loop honours (verified, for this work item; unsigned only
// when no key is configured and not under --recompute), so a hand-written
// "complete" pointer never counts.
func innerApproved(hc *runtime.HookContext, st *runtime.State) bool {
	d := st.Decisions[innerApproval]
	if d == nil || d.Node != innerApproval || (d.Outcome != runtime.OutcomeApproved && d.Outcome != runtime.OutcomeApprovedWithComments) {
		return false
	}
	ok, why := hc.Signer.Honours(d, hc.Strict)
	if !ok {
		return false
	}
	if why != "" {
		return true // no key configured (and not under --recompute): honoured, as every decision is
	}
	return d.WorkItem == st.WorkItem && st.WorkItem == hc.WorkItem.ID
}

// innerState reads one inner loop's current node. ok is false when the
// folder holds no state file; a state that cannot be read or decoded is
// reported as "" (not finished), never as finished.
func innerState(d *specdir.Dir, hc *runtime.HookContext, dir, label string) (current string, ok bool) {
	for _, name := range []string{runtime.StateFile, runtime.LegacyStateFile} {
		p := path.Join(dir, name)
		if !d.Present(p) {
			continue
		}
		text, err := d.Read(p)
		if err != nil {
			return "", true
		}
		st, err := runtime.ParseState([]byte(text), label)
		if err != nil {
			return "", true
		}
		if st.CurrentNode == innerDone && !innerApproved(hc, st) {
			return "", true // a pointer anyone can write is not a finished loop
		}
		return st.CurrentNode, true
	}
	return "", false
}

// declaredRepos reads `repos:` from the execution log's front matter (a
// list; entries trimmed, blanks dropped). It returns the entries read so far
// and an error for the first one that is not owner/repo.
func declaredRepos(d *specdir.Dir) ([]string, error) {
	if !d.Present(artifacts.ExecutionLog) {
		return nil, nil
	}
	text, err := d.Read(artifacts.ExecutionLog)
	if err != nil {
		return nil, nil
	}
	fm, _ := markdown.SplitFrontMatter(text)
	list, ok := fm["repos"].([]any)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, e := range list {
		r := strings.TrimSpace(markdown.String(e))
		if r == "" {
			continue
		}
		if _, err := repoStateKey(r); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// repoStateKey turns "owner/repo" into the inner-loop folder name
// "owner__repo". Each segment must be [A-Za-z0-9._-]+ and not . or ..
func repoStateKey(repo string) (string, error) {
	parts := strings.Split(strings.TrimSpace(repo), "/")
	if len(parts) < 2 {
		return "", fmt.Errorf("repository must be <owner>/<repo>: %s", strconv.Quote(repo))
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || !repoSegment(p) {
			return "", fmt.Errorf("unusable repository segment %s in %s", strconv.Quote(p), strconv.Quote(repo))
		}
	}
	return strings.Join(parts, "__"), nil
}

func repoSegment(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
