package work

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
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
	// innerEscalated is where an inner loop waits for an operator.
	innerEscalated = "escalated"
)

// innerLoop is one pull request's inner-loop state found on disk.
type innerLoop struct {
	label   string // "pr-16" or "octo__infra/pr-7"
	key     string // "" for the origin repository, else the owner__repo folder
	current string // "" when the state is unreadable: not finished
	// escalation is why the loop stands escalated (nil when it does not).
	escalation *runtime.Escalation
}

// AwaitInnerLoops holds the outer loop until every pull request's inner
// loop has reached `complete` (with an approval this loop honours) and
// every repository the work item needs code in has one. Those repositories
// are the signed declaration of `the-loop graph repos` (never an artifact
// an agent edits); with no declaration, the origin repository alone — an
// item with code work and no pull request is held. A declaration of none
// (`graph repos --clear`) needs no pull request. The inner loop of a pull
// request closed without merging no longer holds the item, and no longer
// counts for its repository.
//
// The origin repository (which owns the top-level pr-loops/pr-<n>/ folders)
// is the `originRepo` parameter when given, else the repository config's,
// else the work item's GitHub ticket repository; when none is known,
// top-level loops cannot be attributed and the wait message says so.
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
	abandoned := abandonedLoops(hc.State)
	var pending, dropped, escalated []string
	topLevel := false
	byKey := map[string]bool{}
	for _, l := range loops {
		if abandoned[l.label] {
			dropped = append(dropped, l.label)
			continue
		}
		if l.current != innerDone {
			pending = append(pending, l.label)
		}
		if l.escalation != nil {
			escalated = append(escalated, escalatedLine(hc.WorkItem.ID, l))
		}
		if l.key == "" {
			topLevel = true
		} else {
			byKey[strings.ToLower(l.key)] = true
		}
	}
	required, declared := requiredRepos(hc.State, origin)
	var missing []string
	for _, repo := range required {
		key, _ := runtime.RepoStateKey(repo)
		has := byKey[strings.ToLower(key)]
		if origin != "" && runtime.SameRepo(repo, origin) {
			has = has || topLevel
		}
		if !has {
			missing = append(missing, repo)
		}
	}
	data := map[string]any{"inner_loops": len(loops) - len(dropped), "declared": declared, "required": required}
	if len(dropped) > 0 {
		data["abandoned"] = dropped
	}
	if !declared && origin == "" && len(loops) == len(dropped) {
		r := runtime.Waiting(HookInnerLoops, fmt.Sprintf("no repository is declared and the origin repository is unknown, so nothing says where this item's code lands: "+
			"declare the repositories with `the-loop graph repos %s --repository OWNER/REPO`, or set `ticketing.github.owner`/`.repo`", hc.WorkItem.ID))
		r.Data = data
		return r, nil
	}
	if len(pending) == 0 && len(missing) == 0 {
		return runtime.OK(HookInnerLoops, data), nil
	}
	var parts []string
	if len(pending) > 0 {
		parts = append(parts, fmt.Sprintf("waiting for %d inner loop(s) to finish: %s", len(pending), strings.Join(pending, ", ")))
	}
	parts = append(parts, escalated...)
	if len(missing) > 0 {
		what := "declared repository(ies) have"
		if !declared {
			what = "the origin repository has"
		}
		parts = append(parts, fmt.Sprintf("%d %s no pull request yet: %s — open one with `the-loop pr create --work-item %s --repository OWNER/REPO`",
			len(missing), what, strings.Join(missing, ", "), hc.WorkItem.ID))
		if hc.State != nil && len(hc.State.PullAsks) > 0 {
			parts = append(parts, fmt.Sprintf("a session asked for %d pull request(s); the poller opens them on its next cycle", len(hc.State.PullAsks)))
		}
		if origin == "" && topLevel {
			parts = append(parts, "the origin repository is unknown (set `ticketing.github.owner`/`.repo`), so pr-loops/pr-<n>/ cannot be attributed to a repository")
		}
	}
	r := runtime.Waiting(HookInnerLoops, strings.Join(parts, "; ")+
		" — each pull request completes its pdlc-pr-loop (docs/specs/<id>/pr-loops/) before the work item moves past implementation")
	data["pending"], data["missing_repos"] = pending, missing
	if len(escalated) > 0 {
		data["escalated"] = escalated
	}
	r.Data = data
	return r, nil
}

// escalatedLine names an escalated inner loop, why, and the operator's
// command that resumes it where it escalated from.
func escalatedLine(id string, l innerLoop) string {
	n := strings.TrimPrefix(path.Base(l.label), "pr-")
	cmd := fmt.Sprintf("the-loop graph force %s --pr %s", id, n)
	if l.key != "" {
		cmd += " --pr-repo " + strings.Replace(l.key, "__", "/", 1)
	}
	from := l.escalation.From
	if from == "" {
		from = "<node>"
	}
	return fmt.Sprintf("%s is escalated from %s (%s); an operator resumes it with `%s --to %s --reason \"…\"`",
		l.label, from, strings.Join(strings.Fields(l.escalation.Reason), " "), cmd, from)
}

// requiredRepos are the repositories the item must have a pull request in:
// the declared ones, else the origin repository (none when it is unknown).
func requiredRepos(st *runtime.State, origin string) ([]string, bool) {
	if st != nil && st.Repos != nil {
		return runtime.DeclaredRepos(st.Repos), true
	}
	if origin == "" {
		return []string{}, false
	}
	return []string{origin}, false
}

// abandonedLoops are the inner-loop labels of the linked pull requests that
// were closed without merging.
func abandonedLoops(st *runtime.State) map[string]bool {
	out := map[string]bool{}
	if st == nil {
		return out
	}
	for _, l := range st.PullRequests {
		if l.State == runtime.PullClosed && l.InnerLoop != "" {
			out[strings.TrimPrefix(l.InnerLoop, prLoopsDir+"/")] = true
		}
	}
	return out
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
	if hc.Origin != "" {
		if _, err := repoStateKey(hc.Origin); err == nil {
			return hc.Origin, nil
		}
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
		if cur, esc, ok := innerState(d, hc, dir, label); ok {
			seen[label] = true
			out = append(out, innerLoop{label: label, key: key, current: cur, escalation: esc})
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
	return d.WorkItem == st.WorkItem && st.WorkItem == hc.WorkItem.ID && (hc.InnerFault == nil || hc.InnerFault(st, d) == "")
}

// innerState reads one inner loop's current node, and why it escalated
// when it stands escalated. ok is false when the folder holds no state
// file; a state that cannot be read or decoded is reported as "" (not
// finished), never as finished.
func innerState(d *specdir.Dir, hc *runtime.HookContext, dir, label string) (current string, esc *runtime.Escalation, ok bool) {
	for _, name := range []string{runtime.StateFile, runtime.LegacyStateFile} {
		p := path.Join(dir, name)
		if !d.Present(p) {
			continue
		}
		text, err := d.Read(p)
		if err != nil {
			return "", nil, true
		}
		st, err := runtime.ParseState([]byte(text), label)
		if err != nil {
			return "", nil, true
		}
		if st.CurrentNode == innerDone && !innerApproved(hc, st) {
			return "", nil, true // a pointer anyone can write is not a finished loop
		}
		if st.CurrentNode == innerEscalated && st.Escalation != nil {
			esc = st.Escalation
		}
		return st.CurrentNode, esc, true
	}
	return "", nil, false
}

// repoStateKey turns "owner/repo" into the inner-loop folder name
// "owner__repo". Each segment must be [A-Za-z0-9._-]+ and not . or ..
func repoStateKey(repo string) (string, error) {
	parts := strings.Split(strings.TrimSpace(repo), "/")
	if len(parts) < 2 {
		return "", fmt.Errorf("repository must be <owner>/<repo>: %s", strconv.Quote(repo))
	}
	for _, p := range parts {
		if !runtime.RepoSegment(p) {
			return "", fmt.Errorf("unusable repository segment %s in %s", strconv.Quote(p), strconv.Quote(repo))
		}
	}
	return strings.Join(parts, "__"), nil
}
