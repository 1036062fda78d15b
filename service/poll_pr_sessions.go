package service

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

// prLine is one pull request loop of an item, as its status comment shows
// it: where the loop stands and what it waits for (its session, the
// item's session, or something else).
type prLine struct {
	key   sessionKey
	pull  string // OWNER/REPO#N
	node  string
	own   bool
	waits string
	// entered is when the loop's visit of node began.
	entered time.Time
	// fix says why the visit runs again when a fix round sent it back.
	fix string
}

// sessionMode is the item's signed pr-sessions choice (never,
// cross-repository, always), else the operator's default.
func sessionMode(sess *session, fallback string) string {
	view := sess.rt.Trusted(sess.state, false)
	if d := view.State.Decisions["phase-selection"]; d != nil && d.Kind == runtime.KindSelection {
		if m, ok := d.Data["sessionPerPr"].(string); ok && slices.Contains(checklist.SessionModes, m) {
			return m
		}
	}
	if slices.Contains(checklist.SessionModes, fallback) {
		return fallback
	}
	return checklist.DefaultSessionMode
}

// wantsOwn says whether mode gives the pull request of repo a session of
// its own (origin is the item's origin repository).
func wantsOwn(mode, repo, origin string) bool {
	switch mode {
	case "always":
		return true
	case "cross-repository":
		return origin == "" || !runtime.SameRepo(repo, origin)
	}
	return false
}

// pullWants is what the item's pull request loops ask of the supervisor:
// a session for each loop standing on an agent node — its own, in its own
// working tree on the pull request's branch, when the item's pr-sessions
// choice gives it one and such a tree can be had; otherwise the item's one
// session works it, one loop at a time and only while the item's own loop
// needs no session (itemBusy). It also says what each loop waits for.
func (p *Poller) pullWants(ctx context.Context, it *polledItem, sess *session, itemBusy bool) ([]sessions.Want, []prLine) {
	loops := p.innerLoops(ctx, sess, it.id)
	if len(loops) == 0 {
		return nil, nil
	}
	mode := sessionMode(sess, p.Svc.cfg.Routing.SessionPerPR)
	var wants []sessions.Want
	var lines []prLine
	for _, l := range loops {
		line := prLine{pull: l.link.Key(), node: l.sess.state.CurrentNode, entered: visitStart(l.sess.state, l.sess.state.CurrentNode),
			key: sessionKey{repo: sess.repo.Root, item: it.id, prRepo: strings.ToLower(l.link.Repo), pr: l.link.Number},
			fix: fixNote(l.sess.state, p.Svc.cfg.CI.MaxFixAttempts)}
		n, ok := l.sess.rt.Graph.Node(l.sess.state.CurrentNode)
		if line.waits = innerWait(l, n, ok, it.id, sess); line.waits != "" {
			lines = append(lines, line)
			continue
		}
		workdir, gitTree := sess.repo.Root, it.tree
		if wantsOwn(mode, l.link.Repo, sess.rt.Origin) {
			tree, why := p.prTree(ctx, it, sess, l.link)
			if tree != nil {
				p.pushPRTree(ctx, it, sess, tree)
				line.own, workdir, gitTree = true, tree.Dir, tree
			} else {
				p.declinePRSession(ctx, sess, it.id, l.link, why)
			}
		}
		if !line.own && itemBusy {
			line.waits = "the item's session, which works something else now"
			lines = append(lines, line)
			continue
		}
		w, why := p.innerWant(ctx, sess, l, n, it.id, workdir, line.own)
		if w == nil {
			line.waits = why
			lines = append(lines, line)
			continue
		}
		itemBusy = itemBusy || !line.own
		if gitTree != nil {
			w.Writable, w.ReadOnly = gitTree.GitDirs()
		}
		wants = append(wants, *w)
		lines = append(lines, line)
	}
	return wants, lines
}

// innerWait is what a pull request's loop waits for instead of a session
// ("" when it stands on an agent node with nothing else to wait for); an
// escalated loop names the operator's command that resumes it, in the
// item's tree (outer).
func innerWait(l innerLoop, n *runtime.Node, ok bool, id string, outer *session) string {
	st := l.sess.state
	switch {
	case !ok:
		return "its loop to be started"
	case n.ID == "escalated" && st.Escalation != nil:
		return fmt.Sprintf("an operator: its loop is escalated from %s (%s); resume it with `%s`",
			st.Escalation.From, oneLine(st.Escalation.Reason), resumeCommand(id, l.link, outer, st.Escalation.From))
	case n.Terminal:
		return "nothing: its loop is finished"
	case n.IsHuman():
		return fmt.Sprintf("an authorized review on %s at %s: an approval (or `approved`), or changes requested", l.link.Key(), n.ID)
	case st.EntryPending != "":
		return "the loop to run the entry chain of " + n.ID
	case st.Parked != nil && st.Parked.Node == n.ID:
		return "GitHub: " + st.Parked.Reason
	}
	return ""
}

// resumeCommand is the operator's force that resumes the escalated loop of
// link at node, in the tree the item lives in.
func resumeCommand(id string, link runtime.PullRequestLink, outer *session, node string) string {
	cmd := fmt.Sprintf("the-loop graph force %s --pr %d", id, link.Number)
	if origin := outer.rt.Origin; origin == "" || !runtime.SameRepo(link.Repo, origin) {
		cmd += " --pr-repo " + link.Repo
	}
	return cmd + fmt.Sprintf(" --to %s --reason \"…\" --repo %s", node, outer.repo.Root)
}

// innerWant is the session a pull request's loop asks for at node n.
func (p *Poller) innerWant(ctx context.Context, sess *session, l innerLoop, n *runtime.Node, id, workdir string, own bool) (*sessions.Want, string) {
	model, effort, chosen := frozenChoice(sess)
	name, why := harnessFor(p.Svc, sess, n.ID, chosen)
	if name == "" {
		return nil, why
	}
	a := &p.acts
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	prompt, err := a.prompts.inner(ctx, p.Svc, sess, l, n, id, workdir, own)
	if err != nil {
		return nil, "the assignment could not be written: " + err.Error()
	}
	visit := 0
	if rec := l.sess.state.Nodes[n.ID]; rec != nil {
		visit = rec.Entries
	}
	return &sessions.Want{Repo: sess.repo.Root, WorkItem: id, Node: n.ID, Prompt: prompt, Harness: name, Model: model, Effort: effort,
		Workdir: workdir, Order: armedAt(sess.state), Visit: visit, PR: l.link.Number, PRRepo: l.link.Repo, Own: own}, ""
}

// prTreeID names a pull request's own tree under its repository's folder
// of trees: the item's container and id, which no item id can be.
func prTreeID(container, id string) string { return containerDir(container) + "." + id }

// prTree gives the pull request link of the item its own working tree on
// its branch, in a checkout of its repository that a polling source
// watches; nil, and why, when it cannot have one.
func (p *Poller) prTree(ctx context.Context, it *polledItem, sess *session, link runtime.PullRequestLink) (*workspace.Tree, string) {
	trees := p.Svc.deps.Trees
	switch {
	case trees == nil:
		return nil, "the loop keeps no working trees here"
	case link.Head == "":
		return nil, "its head branch is not recorded"
	case it.tree != nil && link.Head == it.tree.Branch && runtime.SameRepo(link.Repo, firstNonEmpty(sess.rt.Origin, it.container)):
		return nil, fmt.Sprintf("its branch %s is the work item's own, checked out in the item's working tree", link.Head)
	}
	for _, src := range p.Sources {
		if src.System != "github" || src.Checkout == "" {
			continue
		}
		for _, repo := range src.Repos {
			if !runtime.SameRepo(repo, link.Repo) {
				continue
			}
			id := prTreeID(it.container, it.id)
			if tree, err := trees.Find(ctx, src.Checkout, repo, id); err == nil && tree != nil && tree.Branch == link.Head {
				return tree, ""
			}
			tree, err := trees.Add(ctx, src.Checkout, repo, id, link.Head)
			if err != nil {
				return nil, fmt.Sprintf("its working tree could not be created: %v", err)
			}
			return tree, ""
		}
	}
	return nil, fmt.Sprintf("no polling source has a checkout of %s to give it a working tree (add it to polling.sources with a checkout)", link.Repo)
}

// removePRTrees removes the trees the item's pull requests had of their
// own; one holding work its remote lacks is kept, and said so.
func (p *Poller) removePRTrees(ctx context.Context, it *polledItem, sess *session) {
	for _, l := range sess.state.PullRequests {
		for _, src := range p.Sources {
			if src.System != "github" || src.Checkout == "" {
				continue
			}
			for _, repo := range src.Repos {
				if !runtime.SameRepo(repo, l.Repo) {
					continue
				}
				if err := p.Svc.deps.Trees.Remove(ctx, src.Checkout, repo, prTreeID(it.container, it.id)); err != nil {
					_ = p.Svc.appendEvents(ctx, sess.repo.Root, it.id, []runtime.EventRecord{{Name: "tree.kept", Node: "cleanup",
						Data: map[string]any{"pullRequest": l.Key(), "reason": err.Error()}}})
				}
			}
		}
	}
}

// declinePRSession records, once per pull request, that it gets no session
// of its own and why: its loop is worked by the item's session.
func (p *Poller) declinePRSession(ctx context.Context, sess *session, id string, link runtime.PullRequestLink, why string) {
	key := sess.repo.Root + "\x00" + id + "\x00" + strings.ToLower(link.Key())
	a := &p.acts
	a.mu.Lock()
	a.init()
	seen := a.declined[key] == why
	a.declined[key] = why
	a.mu.Unlock()
	if seen {
		return
	}
	p.log().Info("a pull request gets no session of its own; the item's session works its loop", "workItem", id, "pullRequest", link.Key(), "reason", why)
	ev := runtime.EventRecord{Name: "session.pr_session_declined", Data: map[string]any{"pullRequest": link.Key(), "reason": why}}
	if err := p.Svc.appendEvents(ctx, sess.repo.Root, id, []runtime.EventRecord{ev}); err != nil {
		p.log().Warn("could not record a declined pull request session", "workItem", id, "err", err)
	}
}

// inner is the prompt of a session working pull request l's loop at n.
func (c *promptCache) inner(ctx context.Context, s *Service, sess *session, l innerLoop, n *runtime.Node, id, workdir string, own bool) (string, error) {
	k := promptKey{repo: sess.repo.Root, item: id, node: n.ID, pull: l.link.Key() + fmt.Sprint(own)}
	if rec := l.sess.state.Nodes[n.ID]; rec != nil {
		k.visit, k.block = visitName(rec), rec.LastBlock
	}
	if p, ok := c.byKey[k]; ok {
		return p, nil
	}
	p, err := s.innerPrompt(ctx, sess, l, n, id, workdir, own)
	if err != nil {
		return "", err
	}
	if c.byKey == nil || len(c.byKey) > 4096 {
		c.byKey = map[promptKey]string{}
	}
	c.byKey[k] = p
	return p, nil
}

// innerPrompt is the assignment of node n of pull request l's loop: what
// to do, why it runs again when it does, where to work and how to claim.
func (s *Service) innerPrompt(ctx context.Context, sess *session, l innerLoop, n *runtime.Node, id, workdir string, own bool) (string, error) {
	var b strings.Builder
	a := gates.Assignment{WorkItem: id, PR: l.link.Number, LoopDir: l.link.InnerLoop}
	if sess.rt.Origin == "" || !runtime.SameRepo(l.link.Repo, sess.rt.Origin) {
		a.PRRepo = l.link.Repo
	}
	b.WriteString(gates.AssignmentText(l.sess.rt.Graph, n, a))
	writeVisit(&b, l.sess.state, n.ID, s.cfg.CI.MaxFixAttempts)
	claim := fmt.Sprintf("pr=%d", l.link.Number)
	if a.PRRepo != "" {
		claim += ", prRepo=" + a.PRRepo
	}
	loopDir := path.Join(sess.repo.SpecRoot, id, l.link.InnerLoop)
	if own {
		loopDir = filepath.Join(sess.repo.SpecDir(id), filepath.FromSlash(l.link.InnerLoop))
	}
	for _, e := range n.Exit {
		if e.Hook == "review-rounds" && e.With["review"] == "critic-review" {
			fmt.Fprintf(&b, "\nRun each critic round with the critic_run tool (workItem=%s, %s), so the loop records it on this pull request's loop, "+
				"and put its runId in the Run column of this loop's own table, %s/evidence/critic-review.md.\n", id, claim, loopDir)
		}
	}
	fmt.Fprintf(&b, "\nThis pull request's loop keeps its own records in %s/: %s. Write them there, never in the work item's spec folder or another pull request's loop folder: "+
		"its gates read only its own.\n", loopDir, strings.Join(l.sess.rt.Graph.Records, ", "))
	if own {
		fmt.Fprintf(&b, "\nThis session works pull request %s only, in its own working tree (this directory) on its branch %s: commit the code there (the loop pushes it). "+
			"The work item's spec folder — the reviewer briefing, the documentation evidence — and this loop's folder are in the work item's tree: %s. "+
			"Write this pull request's records there, then commit them from there.", l.link.Key(), l.link.Head, sess.repo.SpecDir(id))
	} else {
		fmt.Fprintf(&b, "\nThis session works %s of pull request %s only, in the work item's working tree, whose branch is the pull request's head (%s). "+
			"Commit what you write; the loop pushes it (this session has no credentials to push with).", n.ID, l.link.Key(), l.link.Head)
	}
	fmt.Fprintf(&b, " Then claim the node with the graph_complete tool of the `the-loop` MCP server (workItem=%s, %s). Once the claim is answered, end the session: "+
		"the loop launches the next session for the next node, and stops for the humans at the pull request's review.\n\n", id, claim)
	return s.withGraphContext(ctx, &b, sess.repo.Root, id)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
