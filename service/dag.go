package service

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/dag"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// phaseSelection is the node a held item waits at, and whose recorded
// selection says its work has started.
const phaseSelection = "phase-selection"

// completeNode is the node an item walked to the end stands at.
const completeNode = "complete"

// trackers returns the relation readers of the configured ticket systems.
// A system without a usable provider is left out (its tickets count as
// unfinished); a Jira that is configured but unusable is named in a
// warning.
func (s *Service) trackers() (relations.Trackers, []string) {
	var t relations.Trackers
	var warns []string
	for _, system := range []string{"github", "jira"} {
		p, err := s.Provider(system)
		switch {
		case errors.Is(err, ErrNoIntegration):
			continue
		case err != nil:
			if system == "github" || s.cfg.Integrations.Jira.BaseURL != "" {
				warns = append(warns, fmt.Sprintf("the %s integration is not usable (%v); its tickets count as unfinished", system, err))
			}
			continue
		}
		rr, ok := p.(integrations.RelationReader)
		if !ok || p.Name() != system {
			continue
		}
		if system == "jira" {
			t.Jira = rr
			continue
		}
		t.GitHub = rr
		if h, ok := p.(interface{ Host() string }); ok {
			t.GitHubHost = h.Host()
		}
	}
	return t, warns
}

// collectPlan reads the dependency graph around roots and evaluates it with
// lookup; the plan carries the collection's warnings.
func (s *Service) collectPlan(ctx context.Context, t relations.Trackers, roots []integrations.Ref, lookup dag.Lookup) (dag.Plan, error) {
	if t.GitHub == nil && t.Jira == nil {
		return dag.Plan{}, fmt.Errorf("read the dependencies of %s: %w", roots[0], ErrNoIntegration)
	}
	res, err := relations.Collect(ctx, t, roots, relations.Options{MaxItems: s.cfg.DAG.MaxItems})
	if err != nil {
		return dag.Plan{}, err
	}
	plan := dag.FromRelations(res.Items).Evaluate(lookup)
	plan.Warnings = append(plan.Warnings, res.Warnings...)
	return plan, nil
}

// workItemAt is where the loop keeps a ticket: a checkout and the work item
// id there, and the polled container (OWNER/REPO, a Jira project) whose
// source watches it ("" when none does).
type workItemAt struct {
	checkout, id, container string
}

// locate finds where the loop keeps ref: the polling source that watches
// its repository or project, else (extra, when set) a repository whose
// configuration names it and that has its spec folder.
func (s *Service) locate(t relations.Trackers, ref integrations.Ref, extra *repoconfig.Repo) (workItemAt, bool) {
	ref = t.Canon(ref)
	id := itemID(ref)
	if id == "" {
		return workItemAt{}, false
	}
	for _, src := range s.cfg.Polling.Sources {
		if c := watches(t, src.System, src.Repos, src.Projects, ref); src.Checkout != "" && c != "" {
			return workItemAt{checkout: src.Checkout, id: id, container: c}, true
		}
	}
	if extra == nil {
		return workItemAt{}, false
	}
	origin := extra.OriginRepo()
	ours := ref.System == "github" && ref.Host == t.GitHubHost && strings.EqualFold(origin, ref.Owner+"/"+ref.Repo)
	if ref.System == "jira" && extra.Config.Ticketing.System == "jira" {
		if _, err := os.Stat(extra.SpecDir(id)); err == nil {
			ours = true
		}
	}
	if !ours {
		return workItemAt{}, false
	}
	return workItemAt{checkout: extra.Root, id: id}, true
}

// itemID is the work item id the poller gives ref: issue-N on GitHub, the
// key on Jira.
func itemID(ref integrations.Ref) string {
	switch {
	case ref.System == "jira" && ref.Key != "":
		return strings.ToUpper(ref.Key)
	case ref.System == "github" && ref.Number > 0:
		return fmt.Sprintf("issue-%d", ref.Number)
	}
	return ""
}

// watches returns the container (a project, OWNER/REPO) of repos or
// projects through which a polling source of system watches ref ("" when
// it does not).
func watches(t relations.Trackers, system string, repos, projects []string, ref integrations.Ref) string {
	if system != ref.System {
		return ""
	}
	if system == "jira" {
		project, _, ok := strings.Cut(ref.Key, "-")
		if !ok {
			return ""
		}
		for _, p := range projects {
			if strings.EqualFold(p, project) {
				return p
			}
		}
		return ""
	}
	if ref.Host != t.GitHubHost {
		return ""
	}
	for _, r := range repos {
		if strings.EqualFold(r, ref.Owner+"/"+ref.Repo) {
			return r
		}
	}
	return ""
}

// checkouts memoizes what one evaluation opened of each checkout: its
// repository and the signer its decisions verify with (nil: unusable).
type checkouts map[string]*checkoutView

type checkoutView struct {
	repo   *repoconfig.Repo
	signer *runtime.Signer
}

// progressLookup returns the dag lookup of where the loop stands on each
// ticket, read from st (and the portable records of its checkouts).
func (s *Service) progressLookup(ctx context.Context, st *store.Store, t relations.Trackers, extra *repoconfig.Repo, seen checkouts, memo *progressMemo) dag.Lookup {
	return func(ref integrations.Ref) dag.Progress {
		at, ok := s.locate(t, ref, extra)
		if !ok {
			return dag.Progress{}
		}
		cv, ok := seen[at.checkout]
		if !ok {
			repo, err := s.openItemRepo(ctx, at.checkout)
			if err != nil {
				s.log().Debug("a dependency's checkout cannot be opened", "checkout", at.checkout, "err", err)
			} else {
				signer, _ := s.signerFor(repo)
				cv = &checkoutView{repo: repo, signer: signer}
			}
			seen[at.checkout] = cv
		}
		if cv == nil {
			return dag.Progress{}
		}
		if tv := s.treeView(cv, at); tv != nil {
			// The poller keeps an item it armed in its own tree: read it
			// there first.
			if pr, err := memo.progressOf(ctx, st, tv, at.id); err == nil && pr.Armed {
				return pr
			}
		}
		pr, err := memo.progressOf(ctx, st, cv, at.id)
		if err != nil {
			s.log().Warn("a dependency's state cannot be read; it counts as not started", "workItem", at.id, "err", err)
		}
		return pr
	}
}

// treeView is the view of the working tree the poller gives item at of a
// polled container (nil without trees): the checkout's repository and
// keys, rooted where the tree lives, whether or not it is on disk (its
// state is in the store either way).
func (s *Service) treeView(cv *checkoutView, at workItemAt) *checkoutView {
	if s.deps.Trees == nil || at.container == "" {
		return nil
	}
	repo := *cv.repo
	repo.Root, repo.Warnings = s.deps.Trees.Path(at.container, at.id), nil
	return &checkoutView{repo: &repo, signer: cv.signer}
}

// progressMemo keeps, across cycles, the progress read from each stored
// state: a state that did not change is not verified again (nil keeps
// nothing).
type progressMemo struct {
	mu   sync.Mutex
	seen map[string]memoProgress
}

type memoProgress struct {
	sum [sha256.Size]byte
	pr  dag.Progress
}

// progressOf is the package's progressOf, answered from the memo when the
// stored state is the one it was read from.
func (m *progressMemo) progressOf(ctx context.Context, st *store.Store, cv *checkoutView, id string) (dag.Progress, error) {
	if m == nil || st == nil {
		return progressOf(ctx, st, cv, id)
	}
	blob, ok, err := storedState(ctx, st, cv.repo, id)
	if err != nil || !ok {
		return progressOf(ctx, st, cv, id)
	}
	key, sum := cv.repo.Root+"\x00"+id, sha256.Sum256(blob)
	m.mu.Lock()
	if e, ok := m.seen[key]; ok && e.sum == sum {
		m.mu.Unlock()
		return e.pr, nil
	}
	m.mu.Unlock()
	pr, err := progressOf(ctx, st, cv, id)
	if err != nil {
		return pr, err
	}
	m.mu.Lock()
	if m.seen == nil || len(m.seen) > 4096 {
		m.seen = map[string]memoProgress{}
	}
	m.seen[key] = memoProgress{sum: sum, pr: pr}
	m.mu.Unlock()
	return pr, nil
}

// progressOf is where the loop stands on work item id of a checkout. Only
// what an agent cannot write counts as progress: an item has started when
// its phase selection is recorded and its signature verifies (or, when the
// store holds it, its pointer stands past phase selection, where only the
// engine or an operator's force puts it), and it is complete only when the
// store's pointer stands at complete. A portable record alone — a file in
// the repository — can say an item is armed and where, never that it
// started or finished.
func progressOf(ctx context.Context, st *store.Store, cv *checkoutView, id string) (dag.Progress, error) {
	if err := runtime.ValidateID(id); err != nil {
		return dag.Progress{}, err
	}
	var state *runtime.State
	inStore := false
	if st != nil {
		blob, ok, err := storedState(ctx, st, cv.repo, id)
		if err != nil {
			return dag.Progress{}, err
		}
		if ok {
			if state, err = runtime.ParseState(blob, id); err != nil {
				return dag.Progress{}, err
			}
			inStore = true
		}
	}
	if state == nil {
		portable, _, err := readPortable(cv.repo.SpecDir(id), id)
		if err != nil || portable == nil {
			return dag.Progress{}, err
		}
		state = portable
	}
	if state.CurrentNode == "" {
		return dag.Progress{}, nil
	}
	g, _, err := loopFor(state)
	if err != nil {
		return dag.Progress{Armed: true, Loop: state.Loop, Node: state.CurrentNode}, err
	}
	return dag.Progress{
		Armed: true, Loop: g.Name, Node: state.CurrentNode,
		Started:  started(g, state, cv.signer, inStore),
		Complete: inStore && state.CurrentNode == completeNode,
	}, nil
}

// started reports whether work on an armed item has begun: its phase
// selection is recorded (and honoured), or, for a state the store holds,
// its pointer stands past phase selection. A loop without phase selection
// starts working when it is armed.
func started(g *runtime.Graph, st *runtime.State, signer *runtime.Signer, inStore bool) bool {
	ps, ok := g.Node(phaseSelection)
	if !ok {
		return inStore
	}
	view := runtime.Trusted(st, signer, false)
	if d, ok := view.State.Decisions[phaseSelection]; ok && d.Kind == runtime.KindSelection {
		return true
	}
	cur, ok := g.Node(st.CurrentNode)
	return inStore && ok && cur.Index() > ps.Index()
}

// recordOf is the dependency record of an item's place in a plan.
func recordOf(s dag.Status) *runtime.Dependencies {
	d := &runtime.Dependencies{Verdict: string(s.Verdict), Hold: s.Hold, Status: s.Line()}
	for _, b := range s.Blockers {
		d.Blockers = append(d.Blockers, runtime.DependencyBlocker{Ref: b.Ref.String(), At: dag.CleanText(b.At)})
	}
	return d
}

// unreadRecord is the record of an item whose dependency graph could not
// be read: it holds an item that has not started, and says why.
func unreadRecord(err error) *runtime.Dependencies {
	return &runtime.Dependencies{Verdict: runtime.DepUnread, Hold: true,
		Status: "dependencies could not be read (" + dag.CleanText(err.Error()) + "); held until they are"}
}

// noteDependencyRead records in the store that the poller read the
// dependency graph of repo's work item id at at.
func (s *Service) noteDependencyRead(ctx context.Context, repo, id string, at time.Time) error {
	st, err := s.writableStore(ctx)
	if err != nil {
		return err
	}
	return st.RecordDependencyRead(ctx, repo, id, at)
}

// dependencyReport is the dependency line of an item's check report: its
// recorded read, dated from the store when this store holds the read.
func (s *Service) dependencyReport(ctx context.Context, st *store.Store, repo, id string, state *runtime.State) *runtime.DependencyReport {
	if state == nil || state.Dependencies == nil {
		return nil
	}
	rep := &runtime.DependencyReport{Dependencies: *state.Dependencies}
	if st == nil {
		return rep
	}
	at, ok, err := st.DependencyRead(ctx, repo, id)
	if err != nil {
		s.log().Debug("the dependency read time cannot be read", "workItem", id, "err", err)
	}
	if ok {
		rep.ReadAt = at.UTC().Format(time.RFC3339)
		rep.Age = Age(s.now().Sub(at))
	}
	return rep
}

// Age renders a duration as people read an age: 40s, 3m, 5h, 2d.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
