package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/control"
	"github.com/the-loop/the-loop/store"
)

// Poller arms work items from ticket comments and labels and runs the human
// gates of the items it watches. It never advances an agent's node: agents
// claim those with graph_complete.
type Poller struct {
	Svc     *Service
	Sources []config.Source
	// StatusPath is the heartbeat file written after every cycle ("" = none).
	StatusPath string
	Log        *slog.Logger
	// CycleTimeout bounds one cycle over every source (0: unbounded; the
	// poll command sets polling.cycleTimeoutSeconds). Each request is
	// bounded on its own by the providers.
	CycleTimeout time.Duration
	// InstanceName names this poller in the item leases ("" = host, pid
	// and a random part); LeaseTTL is how long a lease lasts unrenewed (0
	// = DefaultLeaseTTL). Several pollers may share a PostgreSQL store:
	// each item is worked by the one holding its lease.
	InstanceName string
	LeaseTTL     time.Duration
	// Wake, when set, runs the next cycle at once on each receive instead
	// of at the interval (the poll command feeds it SIGUSR1).
	Wake <-chan struct{}

	memo commentMemo
	deps dependencyStep
	// rels keeps the GitHub relation reads from cycle to cycle.
	rels   *relationCache
	acts   pollerActs
	pulls  pullWatch
	leases pollLeases
	conds  conditionBook
	// memoProgress keeps the dependency step's reads of unchanged states.
	memoProgress progressMemo
	// perItemReads turns the cycle's one read off (the benchmarks' floor:
	// each item opens its repository and reads its state on its own).
	perItemReads bool
}

// ItemAction is what one cycle did for one work item.
type ItemAction struct {
	WorkItem string `json:"workItem"`
	Ref      string `json:"ref"`
	Action   string `json:"action"`
	Node     string `json:"node,omitempty"`
	Status   string `json:"status,omitempty"`
	Detail   string `json:"detail,omitempty"`
	// Dependencies is the item's place in its dependency graph as this
	// cycle read it, e.g. "blocked by #2 (at design)".
	Dependencies string `json:"dependencies,omitempty"`
	// err is the error behind an "error" or "conflict" action: the
	// condition it is named by its type.
	err error
	// linked is the item a pull request's action was delivered to: its
	// error is that item's condition (nil: the action is the item's own).
	linked *pullOwner
}

// failed marks act as ended on err.
func failed(act ItemAction, err error) ItemAction {
	act.Action, act.Detail, act.err = "error", err.Error(), err
	return act
}

// SourceReport is one watched container's part of a cycle.
type SourceReport struct {
	System    string       `json:"system"`
	Container string       `json:"container"`
	Checkout  string       `json:"checkout"`
	Items     []ItemAction `json:"items"`
	Error     string       `json:"error,omitempty"`
}

// CycleReport is one poll cycle, also written as the heartbeat.
type CycleReport struct {
	At       string         `json:"at"`
	Duration string         `json:"duration"`
	Sources  []SourceReport `json:"sources"`
	// Sessions is the session step (nil when no harness is configured).
	Sessions *SessionsReport `json:"sessions,omitempty"`
}

// AllFailed reports a cycle in which every source failed (none when there
// were no sources).
func (r CycleReport) AllFailed() bool {
	for _, s := range r.Sources {
		if s.Error == "" {
			return false
		}
	}
	return len(r.Sources) > 0
}

func (p *Poller) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return p.Svc.log()
}

// Run polls every interval until ctx is cancelled; a failing cycle is
// logged and the next one runs. A session that ends and a receive on Wake
// each run the next cycle at once. The poll command checks the sources and
// logs the StartupWarnings before it.
//
// Between cycles it renews its item leases, and a wake posted to the store
// (store.Waker: a webhook, another process) starts the next cycle at once.
// When it stops it releases its leases, so another poller sharing the
// store takes its items over without waiting for them to expire.
func (p *Poller) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	ended := p.sessionEnded()
	leaseCtx, stopLeases := context.WithCancel(ctx)
	kept := make(chan struct{})
	go func() { defer close(kept); p.keepLeases(leaseCtx) }()
	defer func() {
		// The keeper stops before the leases are released: a renewal
		// after the release would hold the items another lease long.
		stopLeases()
		<-kept
		p.releaseLeases()
	}()
	wakes := p.listenWakes(leaseCtx)
	for {
		if ctx.Err() != nil {
			return p.stopSessions()
		}
		rep := p.RunOnce(ctx)
		p.log().Info("poll cycle", "sources", len(rep.Sources), "duration", rep.Duration)
		select {
		case <-ctx.Done():
			return p.stopSessions()
		case <-t.C:
		case <-ended: // a session ended: what it claimed is acted on now
		case ref, ok := <-wakes: // something changed in the store: evaluate it now
			if !ok { // the listener ended (the poller stops): the loop's top says so
				wakes = nil
				continue
			}
			p.log().Debug("woken", "ref", ref)
			p.woken(ref)
		case <-p.Wake: // SIGUSR1
		}
	}
}

// listenWakes returns the store's wakes (nil, which never fires, when the
// store cannot give them: the interval still sweeps).
func (p *Poller) listenWakes(ctx context.Context) <-chan string {
	st, err := p.Svc.writableStore(ctx)
	if err != nil {
		return nil
	}
	ch, err := st.Wakes(ctx)
	if err != nil {
		p.log().Warn("cannot listen for wakes; changes wait for the next cycle", "err", err)
		return nil
	}
	return ch
}

// RunOnce runs one cycle over every source.
func (p *Poller) RunOnce(ctx context.Context) CycleReport {
	start := p.Svc.now()
	rep := CycleReport{At: runtime.Now(), Sources: []SourceReport{}}
	var cycle *cycleCache
	if !p.perItemReads {
		ctx, cycle = withCycleCache(ctx)
		defer cycle.end()
	}
	p.cleanCheckouts(ctx)
	p.beginLeases(ctx)
	p.markCycleStart()
	p.beginDependencies()
	p.pulls.reset()
	if p.CycleTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, p.CycleTimeout,
			fmt.Errorf("the poll cycle ran past %s (polling.cycleTimeoutSeconds); the rest waits for the next cycle", p.CycleTimeout))
		defer cancel()
	}
	linked := p.pollLinkedElsewhere(ctx)
	for _, src := range p.Sources {
		containers := src.Repos
		if src.System == "jira" {
			containers = src.Projects
		}
		for _, c := range containers {
			rep.Sources = append(rep.Sources, p.pollContainer(ctx, src, c))
		}
	}
	if linked != nil {
		rep.Sources = append(rep.Sources, *linked)
	}
	p.superviseSessions(ctx, &rep)
	end := p.Svc.now()
	rep.Duration = end.Sub(start).Round(time.Millisecond).String()
	p.Svc.deps.Metrics.Cycle(end, end.Sub(start), rep.AllFailed())
	recordCycle(p.Svc.deps.Metrics, rep)
	if p.StatusPath != "" {
		if b, err := runtime.MarshalJSON(rep); err == nil {
			if err := runtime.WriteFileAtomic(p.StatusPath, b, 0o644); err != nil {
				p.log().Warn("could not write the poll heartbeat", "path", p.StatusPath, "err", err)
			}
		}
	}
	return rep
}

func (p *Poller) pollContainer(ctx context.Context, src config.Source, container string) SourceReport {
	sr := SourceReport{System: src.System, Container: container, Checkout: src.Checkout, Items: []ItemAction{}}
	fail := func(err error) SourceReport {
		sr.Error = err.Error()
		p.log().Warn("poll source failed", "system", src.System, "container", container, "err", err)
		return sr
	}
	if src.Checkout == "" {
		return fail(fmt.Errorf("polling source %s %s names no checkout: set polling.sources[].checkout to the repository the gates are evaluated in", src.System, container))
	}
	if p.Svc.deps.Providers == nil {
		return fail(ErrNoIntegration)
	}
	prov, err := p.Svc.Provider(src.System)
	if err != nil {
		return fail(err)
	}
	lister, ok := prov.(integrations.IssueLister)
	if !ok {
		return fail(fmt.Errorf("the %s provider cannot list issues, so it cannot be polled", src.System))
	}
	if err := context.Cause(ctx); err != nil {
		return fail(err)
	}
	issues, err := lister.ListOpenIssues(ctx, container, "")
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = fmt.Errorf("%w: %w", cause, err)
		}
		return fail(fmt.Errorf("list open issues of %s: %w", container, err))
	}
	p.listedForDependencies(src.System, container, issues)
	issues, pullsListed := splitPulls(issues)
	p.memo.keepOnly(memoScope{src.System, container}, issues)
	pullActs := p.pollPulls(ctx, src, container, prov, issues, pullsListed)
	for _, is := range issues {
		if err := context.Cause(ctx); err != nil {
			sr.Items = append(sr.Items, ItemAction{WorkItem: fmt.Sprint(is.Number), Action: "error", Detail: err.Error()})
			continue
		}
		act := p.pollIssue(ctx, prov, src, container, is)
		if act.Action == "error" && strings.Contains(act.Detail, store.ErrStaleFence.Error()) {
			p.forgetLease(act.Ref) // another poller took it over: ask the store next cycle
		}
		sr.Items = append(sr.Items, act)
	}
	p.pullsDone(pullActs)
	sr.Items = append(sr.Items, pullActs...)
	return sr
}

// splitPulls separates the pull requests a listing holds among the issues
// (GitHub's) from the tickets, keyed by number.
func splitPulls(listed []integrations.Issue) ([]integrations.Issue, map[int]integrations.Issue) {
	issues := make([]integrations.Issue, 0, len(listed))
	pulls := map[int]integrations.Issue{}
	for _, is := range listed {
		if is.Pull {
			pulls[is.Number] = is
			continue
		}
		issues = append(issues, is)
	}
	return issues, pulls
}

// cleanCheckouts removes what killed writes left in the spec folders of
// every polled checkout (see CleanTempFiles), before the cycle reads them.
func (p *Poller) cleanCheckouts(ctx context.Context) {
	seen := map[string]bool{}
	for _, src := range p.Sources {
		if src.Checkout == "" || seen[src.Checkout] {
			continue
		}
		seen[src.Checkout] = true
		removed, err := p.Svc.cleanTempFiles(ctx, src.Checkout)
		if err != nil {
			p.log().Warn("could not clean temporary files", "checkout", src.Checkout, "err", err)
		}
		for _, f := range removed {
			p.log().Info("removed a temporary file a killed write left behind", "checkout", src.Checkout, "file", f)
		}
	}
}

// itemFor names the work item and ref of an issue.
func itemFor(system, container string, is integrations.Issue) (string, string) {
	if system == "jira" {
		key := is.Key
		if key == "" {
			key = is.Ref.Key
		}
		return key, "jira:" + key
	}
	n := is.Number
	if n == 0 {
		n = is.Ref.Number
	}
	num := strconv.Itoa(n)
	return "issue-" + num, "github:" + container + "#" + num
}

func (p *Poller) pollIssue(ctx context.Context, prov integrations.Provider, src config.Source, container string, is integrations.Issue) (act ItemAction) {
	id, refStr := itemFor(src.System, container, is)
	act = ItemAction{WorkItem: id, Ref: refStr, Action: "none"}
	it := &polledItem{prov: prov, src: src, container: container, id: id, updated: is.UpdatedAt, title: is.Title}
	lease, mine, why := p.takeItem(ctx, refStr)
	if !mine {
		// Another poller works it, its conditions and status comment too.
		p.conds.forget(it)
		act.Action, act.Detail = ActionElsewhere, why
		return act
	}
	defer func() { p.itemDone(it, act) }()
	act = p.workIssue(ctx, it, is, act, lease)
	if errors.Is(act.err, errStaleCycleRead) {
		// Its state moved after the cycle read it (nothing was written):
		// work it again from the store as it is now.
		p.log().Debug("an item's state changed after the cycle read it; reading it again", "workItem", id)
		it = &polledItem{prov: prov, src: src, container: container, id: id, updated: is.UpdatedAt, title: is.Title}
		act = p.workIssue(ctx, it, is, ItemAction{WorkItem: id, Ref: refStr, Action: "none"}, lease)
	}
	return act
}

// workIssue works one issue whose lease this poller holds.
func (p *Poller) workIssue(ctx context.Context, it *polledItem, is integrations.Issue, act ItemAction, lease store.Lease) ItemAction {
	prov, src, container, id, refStr := it.prov, it.src, it.container, it.id, act.Ref
	ref, err := runtime.ParseTicketRef(refStr)
	if err != nil {
		return failed(act, err)
	}
	it.ref = ref
	comments, err := p.memo.comments(ctx, prov, memoScope{src.System, container}, refStr, ref, is, p.Svc.now())
	if err != nil {
		return failed(act, fmt.Errorf("list comments: %w", err))
	}
	it.comments = comments
	last, by := p.lastCommand(src, is, comments)
	repo, err := p.itemRepo(ctx, it)
	if err != nil {
		return failed(act, err)
	}
	p.fenceItem(ctx, repo, id, lease)
	if p.heldSinceCycleStart(refStr, lease) {
		// Only this step reads the item from the snapshot: the session
		// step after it reads the store.
		cycleOf(ctx).trust(repo, id)
		defer cycleOf(ctx).untrust(repo, id)
	}
	lease.TakenOver = false
	sess, err := p.Svc.open(ctx, repo, id, control.LoopFor(last))
	if err != nil {
		return failed(act, err)
	}
	started, held := sess.state.CurrentNode != "", false
	if started {
		it.repo, it.started = sess.repo.Root, true
		p.conds.armed(it, sess.repo.Root, sess.state.CurrentNode, sess.rt.Graph.Name)
		p.Svc.noteChangedEvidence(ctx, repo, id, sess.state, comments)
		if held, err = p.Svc.applyControl(ctx, sess, id, last, by); err != nil {
			return failed(act, err)
		}
		p.pushPending(ctx, it, sess)
	}
	deps := p.dependencies(ctx, sess, id, ref, !started && control.IsArming(last))
	act.Dependencies = deps.record.Message()
	switch {
	case last == control.Cleanup:
		return p.cleanup(ctx, it, sess, act, "the-loop cleanup")
	case held || last == control.Pause || last == control.Stop:
		act.Action = "paused"
		if h := runtime.Held(p.Svc.cfg, sess.state); h != nil {
			act.Detail = h.Error()
		}
		p.noteItem(ctx, it, sess, act)
		return act
	case deps.failed != nil:
		return failed(act, deps.failed)
	case !started && (control.IsArming(last) || deps.armedBy != nil):
		if deps.refuse != "" {
			act.Action, act.Detail = "held", deps.refuse
			p.noteUnarmed(it, sess, deps.refuse, deps.record, last, by)
			return act
		}
		loop := control.LoopFor(last)
		if deps.armedBy != nil && !control.IsArming(last) {
			loop = deps.armedBy.loop
		}
		it.repo, it.started = sess.repo.Root, true // asked to arm: stuck arming is said too
		if repo, err = p.armTree(ctx, it, is, comments); err != nil {
			return failed(act, err)
		}
		p.fenceItem(ctx, repo, id, lease)
		res, err := p.arm(ctx, is, StartRequest{ItemRequest: ItemRequest{Repo: repo, WorkItem: id}, Loop: loop, Ref: refStr}, comments)
		if err != nil {
			act = failed(act, err)
			if errors.Is(err, ErrArmRefused) {
				act.Action, act.err, it.started = "refused", nil, false
			}
			return act
		}
		act.Action, act.Node = "started", res.Node
		// A fresh item usually lands on a human gate: evaluate it once now,
		// with its dependency record already kept.
		sess, err = p.Svc.open(ctx, repo, id, "")
		if err != nil {
			return act
		}
		it.repo = sess.repo.Root
		p.conds.armed(it, sess.repo.Root, sess.state.CurrentNode, sess.rt.Graph.Name)
		if err := p.armedDependencies(ctx, sess, id, deps); err != nil {
			act.Detail = err.Error()
			return act
		}
	case !started:
		return act
	}
	return p.evaluate(ctx, it, sess, comments, act)
}

// evaluateGate advances an item standing at a human gate (or parked on a
// named sign-off, or, when due, on something outside the agent's hands
// worth reading again) with the issue's comments; any other node is left
// to its agent.
func evaluateGate(ctx context.Context, sess *session, id string, comments []integrations.Comment, act ItemAction, due bool) ItemAction {
	node, ok := sess.rt.Graph.Node(sess.state.CurrentNode)
	if !ok || node.Terminal || !(node.IsHuman() || awaitsSignOff(node, sess.state) || due) {
		if act.Action == "none" {
			act.Action, act.Node = "idle", sess.state.CurrentNode
		}
		return act
	}
	rep, err := sess.rt.Advance(ctx, id, &runtime.Event{Comments: comments})
	if err != nil {
		return failed(act, err)
	}
	if act.Action == "none" {
		act.Action = "gate"
	}
	act.Node, act.Status = rep.Node, rep.Status
	act.Detail = strings.Join(rep.Messages, "; ")
	return act
}

// isHandoffComment reports a handoff record or one of its parts.
func isHandoffComment(body string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(body, " \t\r\n"), "\n")
	first = strings.TrimSpace(first)
	return first == handoff.RecordMarker || strings.HasPrefix(first, "<!-- the-loop:handoff-part ")
}

// awaitsSignOff reports an agent node parked on a named human sign-off
// (its claim was made, its checks wait for an authorized comment): the
// poller evaluates it again so the sign-off is read. An agent node still in
// progress is never evaluated by the poller.
func awaitsSignOff(n *runtime.Node, st *runtime.State) bool {
	if st.Parked == nil || st.Parked.Node != n.ID {
		return false
	}
	for _, e := range n.Exit {
		if e.Hook == "security-sign-off" {
			return true
		}
	}
	return false
}

func hasLabel(labels []string, want string) bool {
	for _, l := range labels {
		if strings.EqualFold(strings.TrimSpace(l), strings.TrimSpace(want)) && want != "" {
			return true
		}
	}
	return false
}

// IsAuthorized is authz.IsAuthorized: the poller and the gates share one rule.
func IsAuthorized(cfg *config.Config, login string) bool { return authz.IsAuthorized(cfg, login) }

// AuthorizedComments is authz.AuthorizedComments, the reader every gate uses.
func AuthorizedComments(cfg *config.Config, comments []integrations.Comment) []integrations.Comment {
	return authz.AuthorizedComments(cfg, comments)
}

// DefaultPollStatusPath is the heartbeat file beside the database (for a
// PostgreSQL store, in this host's state folder).
func DefaultPollStatusPath(dbPath string) string {
	dir, err := store.LocalDir(dbPath)
	if err != nil {
		dir = filepath.Dir(dbPath)
	}
	return filepath.Join(dir, "poll-status.json")
}

// recordCycle counts a cycle's failed sources, gate evaluations and
// sessions in m.
func recordCycle(m *metrics.Metrics, rep CycleReport) {
	if m == nil {
		return
	}
	for _, s := range rep.Sources {
		if s.Error != "" {
			m.SourceError(s.System)
		}
		for _, it := range s.Items {
			if it.Action == "gate" {
				m.GateEvaluated(it.Status)
			}
		}
	}
	if rep.Sessions != nil {
		m.Sessions(map[string]int{"live": len(rep.Sessions.Live), "queued": len(rep.Sessions.Queued),
			"waiting": len(rep.Sessions.Waiting), "held": len(rep.Sessions.Held)})
	}
}
