package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

// sessionWant is what item id asks of the session supervisor where it
// stands: a session when it is on an agent node, not held (launchHold, with
// the takeovers t) and with nothing else to wait for, else nil and what it
// waits for instead. workdir is where the session runs (the item's tree).
func (s *Service) sessionWant(ctx context.Context, sess *session, id, workdir string, prompts *promptCache, t takeovers) (*sessions.Want, string) {
	st, g := sess.state, sess.rt.Graph
	n, ok := g.Node(st.CurrentNode)
	hold := s.launchHold(sess, id, t)
	switch {
	case st.CurrentNode == "" || !ok:
		return nil, "arming: an authorized `the-loop start` on the ticket"
	case hold != nil:
		return nil, holdWait(hold)
	case n.ID == "escalated" || (st.Escalation != nil && n.IsHuman() && n.Terminal):
		return nil, escalatedWait(sess, id)
	case n.Terminal:
		return nil, "nothing: the walk is finished"
	case n.IsHuman():
		return nil, humanWait(n)
	case n.Actor == runtime.ActorCode:
		return nil, "the loop itself"
	case st.Parked != nil && st.Parked.Node == n.ID && hasExitHook(n, "await-inner-loops"):
		return nil, "its pull requests' loops: " + st.Parked.Reason
	case st.Parked != nil && st.Parked.Node == n.ID:
		return nil, "a human: " + st.Parked.Reason
	}
	model, effort, chosen := frozenChoice(sess)
	name, why := harnessFor(s, sess, n.ID, chosen)
	if name == "" {
		return nil, why
	}
	prompt, err := prompts.get(ctx, s, sess, id, n)
	if err != nil {
		return nil, "the assignment could not be written: " + err.Error()
	}
	visit := 0
	if rec := st.Nodes[n.ID]; rec != nil {
		visit = rec.Entries
	}
	return &sessions.Want{Repo: sess.repo.Root, WorkItem: id, Node: n.ID, Prompt: prompt, Harness: name,
		Model: model, Effort: effort, Workdir: workdir, Order: armedAt(st), Visit: visit}, ""
}

// escalatedWait says what an escalated item waits for: a human, why, and
// the operator's exact command that resumes it where it escalated from.
func escalatedWait(sess *session, id string) string {
	reason, from := "a human decides how to go on", "<node>"
	if e := sess.state.Escalation; e != nil {
		reason = oneLine(e.Reason)
		if e.From != "" {
			from = e.From
		}
	}
	return fmt.Sprintf("a human (escalated: %s); resume it with `the-loop graph force %s --to %s --reason \"…\" --repo %s`",
		reason, id, from, sess.repo.Root)
}

// humanWait says what a human gate waits for, for the status comment and
// `the-loop run`.
func humanWait(n *runtime.Node) string {
	switch {
	case n.ID == "phase-selection":
		return "an authorized `the-loop execute` reply: it signs the phase-selection checklist (untick what should not run; tick a model-* or effort-* row to choose)"
	case gateHasFeedback(n):
		return fmt.Sprintf("an authorized reply at %s: `approved`, `approved with comments` (and what), or `changes requested` (and what)", n.ID)
	}
	return fmt.Sprintf("an authorized reply at %s", n.ID)
}

func gateHasFeedback(n *runtime.Node) bool {
	for _, e := range n.Exit {
		if e.Hook == gates.HookClassifyFeedback {
			return true
		}
	}
	return false
}

// frozenChoice is the model, effort and harness the signed phase
// selection chose for the item ("" each when none): only a verified
// decision counts, so a value written into the portable record by anyone
// else is ignored.
func frozenChoice(sess *session) (model, effort, harness string) {
	view := sess.rt.Trusted(sess.state, false)
	for _, d := range view.State.Decisions {
		if d == nil || d.Kind != runtime.KindSelection {
			continue
		}
		model, _ = d.Data["model"].(string)
		effort, _ = d.Data["effort"].(string)
		harness, _ = d.Data["harness"].(string)
		return model, effort, harness
	}
	return "", "", ""
}

// harnessFor names the harness of the item's session at node, or says why
// none can be chosen: the node's harness in the repository config, else
// in the operator config (sessions.nodes); else the one the signed phase
// selection chose; else the repository config's sessions.harness, else
// the operator's, else the only configured one. A name that is not a
// configured harness is refused when the session is launched: only the
// operator's harnesses ever run.
func harnessFor(s *Service, sess *session, node, chosen string) (string, string) {
	name := firstNonEmpty(sess.repo.Config.Sessions.Nodes[node], s.cfg.Sessions.Nodes[node], chosen,
		sess.repo.Config.Sessions.Harness, s.cfg.DefaultHarness())
	if name == "" {
		return "", "an operator: several harnesses are configured and none is named; set sessions.harness in the config, or sessions.harness in the repository config"
	}
	return name, ""
}

// armedAt orders items by when they were armed (the walk's first entry).
func armedAt(st *runtime.State) int64 {
	earliest := int64(0)
	for _, rec := range st.Nodes {
		t, err := time.Parse(time.RFC3339, rec.EnteredAt)
		if err != nil {
			continue
		}
		if v := t.UnixNano(); earliest == 0 || v < earliest {
			earliest = v
		}
	}
	return earliest
}

// promptCache keeps each node visit's prompt: it is rendered once per
// visit, not every cycle.
type promptCache struct {
	byKey map[promptKey]string
}

type promptKey struct {
	repo, item, node string
	// visit names the node's visit (visitName), block its last refusal.
	visit, block string
	// pull names the pull request whose loop node belongs to ("": the
	// item's own loop), and whether its session is its own.
	pull string
}

func (c *promptCache) get(ctx context.Context, s *Service, sess *session, id string, n *runtime.Node) (string, error) {
	rec := sess.state.Nodes[n.ID]
	k := promptKey{repo: sess.repo.Root, item: id, node: n.ID}
	if rec != nil {
		k.visit, k.block = visitName(rec), rec.LastBlock
	}
	if c != nil {
		if p, ok := c.byKey[k]; ok {
			return p, nil
		}
	}
	p, err := s.sessionPrompt(ctx, sess, id, n)
	if err != nil {
		return "", err
	}
	if c != nil {
		if c.byKey == nil || len(c.byKey) > 4096 {
			c.byKey = map[promptKey]string{}
		}
		c.byKey[k] = p
	}
	return p, nil
}

// sessionPrompt is a session's prompt: the node's assignment (the command
// to run and what it must produce), why it runs again when it does, how
// the session ends, and the $graph_context block.
func (s *Service) sessionPrompt(ctx context.Context, sess *session, id string, n *runtime.Node) (string, error) {
	var b strings.Builder
	b.WriteString(gates.AssignmentText(sess.rt.Graph, n, gates.Assignment{WorkItem: id, Surface: sess.state.Surface}))
	writeVisit(&b, sess.state, n.ID, s.cfg.CI.MaxFixAttempts)
	fmt.Fprintf(&b, "\nThis session works %s only, in this working tree. Commit what you write; the loop pushes the branch (this session has no credentials to push with, and needs none). Then claim the node with the graph_complete tool of the `the-loop` MCP server. Once the claim is answered, end the session: the loop launches the next session for the next node, and stops for the humans at the gates.\n\n", n.ID)
	return s.withGraphContext(ctx, &b, sess.repo.Root, id)
}

// withGraphContext ends a session's prompt b with where item id stands
// (graph status's context block).
func (s *Service) withGraphContext(ctx context.Context, b *strings.Builder, repo, id string) (string, error) {
	gs, err := s.Status(ctx, ItemRequest{Repo: repo, WorkItem: id})
	if err != nil {
		return "", err
	}
	b.WriteString(gs.GraphContext)
	b.WriteString("\n")
	return b.String(), nil
}
