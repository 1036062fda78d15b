package handoffs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookImportHandoff verifies what a handoff carried.
const HookImportHandoff = "import-handoff"

// errNoGraph says the hook context carries no graph to demote along.
var errNoGraph = errors.New("the hook context carries no graph")

// hookSelectionNode is the node whose signed decision is the phase selection.
const hookSelectionNode = "phase-selection"

// ImportHandoff verifies, in chain order, each artifact a handoff carried:
// it exists in the spec folder, its bytes (LF line endings) hash to the
// frozen record, and it passes the section check of the node that produces
// it. On the first failure it un-skips the producing node and every node
// after it up to (not including) the handoff's entry node, records a
// demotion, and passes: the walk then enters the producing node — earlier,
// never later. When no file verifies at all (the first one fails, or the
// frozen record cannot be read), brainstorming runs again. It never adds a
// skip. Artifacts the record lists as approved in chat, among the verified
// ones, are locked by this hook (never by a session).
//
// What it decided is recorded as a signed decision, so `check` reports the
// import as it happened: the files change legitimately afterwards (review
// comments, locks), and re-hashing them then would report a false failure.
func ImportHandoff(hc *runtime.HookContext) (runtime.Result, error) {
	st := hc.State
	if st == nil || st.Handoff == nil {
		return runtime.Skipped(HookImportHandoff, "this work item carries no handoff"), nil
	}
	if d, ok := hc.Recorded(); ok && d.Kind == runtime.KindHandoffImport {
		return runtime.OK(HookImportHandoff, map[string]any{"recorded": true, "demoted": d.Data["demoted"]}), nil
	}
	if hc.Graph == nil {
		return runtime.Result{}, errNoGraph
	}
	rec, err := handoff.DecodeFrozen(st.Handoff.Record)
	if err != nil {
		// An unreadable frozen record verifies nothing: fail closed to the
		// start of the chain, bounded by the furthest node a handoff may enter.
		return demote(hc, demotion{producer: handoff.NodeBrainstorming, enter: handoff.NodeDesignApproval, inclusive: true,
			why: fmt.Sprintf("the frozen handoff record is unreadable (%v)", err)})
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	var verified []string
	for _, a := range rec.Artifacts {
		producer := handoff.ProducerOf(a.Name)
		why := verifyCarried(hc, d, a.Name, a.SHA256, producer)
		if why == "" {
			verified = append(verified, a.Name)
			continue
		}
		if len(verified) == 0 {
			// Nothing verifiable at all: the conversation's work restarts
			// from the brainstorm, never from a later phase.
			producer = handoff.NodeBrainstorming
		}
		return demote(hc, demotion{artifact: a.Name, producer: producer, enter: rec.Enter, why: why, rec: &rec, d: d, verified: verified})
	}
	return demote(hc, demotion{enter: rec.Enter, rec: &rec, d: d, verified: verified})
}

// demotion is what importHandoff concluded.
type demotion struct {
	// artifact is the first file that failed ("" when none did, or the
	// record itself could not be read).
	artifact string
	// producer is the node the walk is demoted to ("" when nothing failed).
	producer string
	// enter bounds the un-skipping: nodes from producer up to enter.
	enter string
	// inclusive also un-skips enter itself (unreadable record).
	inclusive bool
	why       string
	rec       *handoff.Record
	d         *specdir.Dir
	verified  []string
}

// demote applies a verdict. With a failure it un-skips producer and every
// declared-skipped node after it up to the entry node. Under check nothing is
// recorded: a producer that is still skipped blocks, so a check never reports
// a handoff that does not verify as ok before the walk has imported it.
func demote(hc *runtime.HookContext, v demotion) (runtime.Result, error) {
	var unskip []string
	if v.producer != "" {
		var err error
		if unskip, err = unskipRange(hc, v.producer, v.enter, v.inclusive); err != nil {
			return runtime.Final(HookImportHandoff, runtime.Errorf("", "%v", err)), nil
		}
	}
	if hc.ReadOnly {
		if len(unskip) > 0 {
			return runtime.Blocked(HookImportHandoff, runtime.Errorf(hc.RelSpecDir,
				"handoff does not verify yet: %s — run `the-loop handoff import %s` (add --from-dir DIR for files extracted from the spec-chain artifact), commit the files, then claim this node; claimed as it stands, the walk is demoted to %s",
				v.why, hc.WorkItem.ID, v.producer)), nil
		}
		return runtime.OK(HookImportHandoff, map[string]any{"verified": listOrEmpty(v.verified), "demoted": v.producer}), nil
	}
	var locked []lockedFile
	if v.rec != nil && v.d != nil {
		var err error
		if locked, err = lockApprovedInChat(hc, v.d, *v.rec, v.verified); err != nil {
			return runtime.Result{}, err
		}
	}
	hashes := map[string]any{}
	for _, l := range locked {
		hashes[l.name] = l.hash
	}
	hs := hc.State.Handoff
	decision := &runtime.Decision{Node: HookImportHandoff, Kind: runtime.KindHandoffImport, Outcome: string(runtime.Pass),
		Via: runtime.ViaHandoff, By: authz.At(hs.Author), CommentURL: hs.CommentURL, Reason: v.why,
		Data: map[string]any{"verified": listOrEmpty(v.verified), "demoted": v.producer, "locked": names(locked), "lockedHashes": hashes}}
	data := map[string]any{"verified": listOrEmpty(v.verified), "locked": names(locked), "demoted": v.producer, "decision": decision}
	if v.producer != "" {
		data["unskip"] = unskip
		data["demotions"] = []runtime.Demotion{{Artifact: v.artifact, Node: v.producer, Reason: v.why, At: runtime.Now()}}
	} else if v.rec != nil && enterBrainstormApproval(hc, *v.rec) {
		data["outcome"] = outcomeBrainstormSettled
	}
	return runtime.OK(HookImportHandoff, data), nil
}

// outcomeBrainstormSettled routes a verified brainstorm-settled handoff
// straight to brainstorm-approval. Skip routing cannot get there: a skipped
// brainstorming leads past its approval (an ordinary item that skips the
// brainstorm has nothing to approve), while a handed-off brainstorm still
// awaits its author's confirmation.
const outcomeBrainstormSettled = "brainstorm-settled"

// enterBrainstormApproval reports a verified handoff entering
// brainstorm-approval while brainstorming is skipped and the approval is not
// (the replier may have ticked either back on; then the ordinary routing
// applies).
func enterBrainstormApproval(hc *runtime.HookContext, rec handoff.Record) bool {
	if rec.Enter != handoff.NodeBrainstormApproval {
		return false
	}
	_, brainstormSkipped := hc.Skipped[handoff.NodeBrainstorming]
	_, approvalSkipped := hc.Skipped[handoff.NodeBrainstormApproval]
	return brainstormSkipped && !approvalSkipped
}

// unskipRange lists the nodes, in declaration order from producer up to
// enter (enter itself only when inclusive), that carry a declared skip in
// state. Synthetic skips (an unselected opt-in, a handoff-only node) are not
// declarations and stay as they are; skips after enter are the replier's own
// choice and are never touched.
func unskipRange(hc *runtime.HookContext, producer, enter string, inclusive bool) ([]string, error) {
	start, ok := hc.Graph.Node(producer)
	if !ok {
		return nil, fmt.Errorf("handoff demotion names %q, which is not a node of %s", producer, hc.Graph.Name)
	}
	end, ok := hc.Graph.Node(enter)
	if !ok {
		return nil, fmt.Errorf("the handoff enters %q, which is not a node of %s", enter, hc.Graph.Name)
	}
	limit := end.Index()
	if inclusive {
		limit++
	}
	var out []string
	for _, n := range hc.Graph.Nodes[start.Index():min(limit, len(hc.Graph.Nodes))] {
		if _, skipped := hc.Skipped[n.ID]; skipped && hc.State.Skips[n.ID] != nil {
			out = append(out, n.ID)
		}
	}
	return out, nil
}

type lockedFile struct{ name, hash string }

func names(l []lockedFile) []string {
	out := make([]string, 0, len(l))
	for _, f := range l {
		out = append(out, f.name)
	}
	return out
}

func listOrEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// verifyCarried returns why name does not verify ("" when it does).
func verifyCarried(hc *runtime.HookContext, d *specdir.Dir, name, want, producer string) string {
	text, err := d.Read(name)
	if err != nil {
		return fmt.Sprintf("%s is not in %s", name, d.Rel(""))
	}
	if handoff.HashLF([]byte(text)) != want {
		return fmt.Sprintf("%s does not match the record's sha256 (the file differs from the one handed off)", name)
	}
	node, ok := hc.Graph.Node(producer)
	if !ok {
		return ""
	}
	for _, e := range node.Exit {
		if e.Hook != artifacts.HookValidate || e.With["sections"] == nil {
			continue
		}
		sub := *hc
		sub.Node, sub.Params, sub.ReadOnly = node, map[string]any{"sections": e.With["sections"]}, true
		sub.SkippedArtifacts = nil
		res, err := artifacts.ValidateArtifacts(&sub)
		if err != nil {
			return fmt.Sprintf("%s could not be checked: %v", name, err)
		}
		if res.Status == runtime.Block {
			msgs := make([]string, 0, len(res.Messages))
			for _, m := range res.Messages {
				msgs = append(msgs, m.Text)
			}
			return fmt.Sprintf("%s does not pass the %s section check: %s", name, producer, strings.Join(msgs, "; "))
		}
	}
	return ""
}

// lockApprovedInChat writes status: approved, approvedBy and approvedVia
// into the verified artifacts the record says were approved in chat. The
// approver is the human who signed the phase selection (the authorized
// `execute` reply that accepted the handoff's pre-unticked checklist) —
// never the record's poster by itself, and never the loop. With no signed
// selection nothing is locked. Every new text is computed before any file
// is written.
func lockApprovedInChat(hc *runtime.HookContext, d *specdir.Dir, rec handoff.Record, verified []string) ([]lockedFile, error) {
	type pending struct{ name, text string }
	var todo []pending
	sel := hc.State.Decisions[hookSelectionNode]
	if sel == nil || sel.Kind != runtime.KindSelection || strings.TrimSpace(sel.By) == "" {
		return nil, nil
	}
	author := strings.TrimLeft(strings.TrimSpace(sel.By), "@")
	for _, name := range rec.ApprovedInChat {
		if !slices.Contains(verified, name) {
			continue
		}
		text, err := d.Read(name)
		if err != nil {
			return nil, fmt.Errorf("read %s to lock it: %w", name, err)
		}
		fm, _ := markdown.SplitFrontMatter(text)
		if markdown.String(fm["status"]) == "approved" {
			continue
		}
		out, err := markdown.SetFrontMatter(text,
			markdown.Field{Key: "status", Value: "approved"},
			markdown.Field{Key: "approvedBy", Value: []string{author}},
			markdown.Field{Key: "approvedVia", Value: "handoff " + hc.State.Handoff.CommentURL + " (posted for @" + strings.TrimLeft(hc.State.Handoff.Author, "@") + ")"})
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		todo = append(todo, pending{name, out})
	}
	locked := make([]lockedFile, 0, len(todo))
	for _, p := range todo {
		if err := d.WriteAtomic(p.name, []byte(p.text)); err != nil {
			return nil, fmt.Errorf("lock %s: %w", p.name, err)
		}
		locked = append(locked, lockedFile{name: p.name, hash: handoff.HashLF([]byte(p.text))})
	}
	return locked, nil
}
