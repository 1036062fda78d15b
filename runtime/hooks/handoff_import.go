package hooks

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/markdown"
)

const hookImportHandoff = "import-handoff"

// importHandoff verifies, in chain order, each artifact a handoff carried:
// it exists in the spec folder, its committed bytes hash to the record, and
// it passes the section check of the node that produces it. On the first
// failure it un-skips the producing node and every skipped node after it up
// to the handoff's entry node, records a demotion, and passes: the walk then
// enters the producing node — earlier, never later. When nothing verifies,
// brainstorming runs again. It never adds a skip. Artifacts the record lists
// as approved in chat are locked by this hook (never by a session).
func importHandoff(hc *runtime.HookContext) (runtime.Result, error) {
	st := hc.State
	if st == nil || st.Handoff == nil {
		return runtime.Skipped(hookImportHandoff, "this work item carries no handoff"), nil
	}
	rec, err := handoff.DecodeJSON(st.Handoff.Record)
	if err != nil {
		// An unreadable frozen record verifies nothing: fail closed to the start of the chain.
		return demote(hc, "", "brainstorming", fmt.Sprintf("the frozen handoff record is unreadable: %v", err))
	}
	d, err := openSpecDir(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	for _, name := range handoff.ChainOrder() {
		want, carried := rec.Hash(name)
		if !carried {
			continue
		}
		producer := handoff.ProducerOf(name)
		if why := verifyCarried(hc, d, name, want, producer); why != "" {
			return demote(hc, name, producer, why)
		}
	}
	if len(rec.Artifacts) == 0 {
		return demote(hc, "", "brainstorming", "the handoff carried no artifact that can be verified")
	}
	locked, err := lockApprovedInChat(hc, d, rec)
	if err != nil {
		return runtime.Result{}, err
	}
	data := map[string]any{"verified": rec.Names(), "locked": names(locked)}
	if len(locked) > 0 {
		// The lock changes the bytes the record hashed: remember, signed, what
		// the hook itself wrote so a later check still verifies the files.
		hashes := map[string]any{}
		for _, l := range locked {
			hashes[l.name] = l.hash
		}
		data["decision"] = &runtime.Decision{Node: hookImportHandoff, Kind: "handoff-import", Outcome: "pass",
			Via: runtime.ViaHandoff, By: hc.State.Handoff.Author, CommentURL: hc.State.Handoff.CommentURL,
			Data: map[string]any{"lockedHashes": hashes}}
	}
	return runtime.OK(hookImportHandoff, data), nil
}

type lockedFile struct{ name, hash string }

func names(l []lockedFile) []string {
	out := make([]string, 0, len(l))
	for _, f := range l {
		out = append(out, f.name)
	}
	return out
}

// lockedHash is the hash of name as this hook locked it ("" when it did not).
func lockedHash(hc *runtime.HookContext, name string) string {
	d, ok := hc.State.Decisions[hookImportHandoff]
	if !ok || d.Data == nil {
		return ""
	}
	m, _ := d.Data["lockedHashes"].(map[string]any)
	s, _ := m[name].(string)
	return s
}

// verifyCarried returns why name does not verify ("" when it does).
func verifyCarried(hc *runtime.HookContext, d *specDir, name, want, producer string) string {
	text, err := d.read(name)
	if err != nil {
		return fmt.Sprintf("%s is not in %s: %v", name, d.rel(""), err)
	}
	if got := handoff.HashLF([]byte(text)); got != want && got != lockedHash(hc, name) {
		return fmt.Sprintf("%s does not match the record's sha256 (the committed file was changed)", name)
	}
	node, ok := hc.Graph.Node(producer)
	if !ok {
		return ""
	}
	for _, e := range node.Exit {
		if e.Hook != hookValidate {
			continue
		}
		if e.With["sections"] == nil {
			continue
		}
		params := map[string]any{"sections": e.With["sections"]}
		sub := *hc
		sub.Node, sub.Params, sub.ReadOnly = node, params, true
		sub.SkippedArtifacts = nil
		res, err := validateArtifacts(&sub)
		if err != nil {
			return fmt.Sprintf("%s could not be checked: %v", name, err)
		}
		if res.Status == runtime.Block {
			var msgs []string
			for _, m := range res.Messages {
				msgs = append(msgs, m.Text)
			}
			return fmt.Sprintf("%s does not pass the %s section check: %s", name, producer, strings.Join(msgs, "; "))
		}
	}
	return ""
}

// demote un-skips producer and every skipped node after it up to the entry
// node. Under check nothing is recorded: a producer that is still skipped
// blocks, so a check never reports a handoff that no longer verifies as ok.
func demote(hc *runtime.HookContext, artifact, producer, why string) (runtime.Result, error) {
	start, ok := hc.Graph.Node(producer)
	if !ok {
		return final(hookImportHandoff, runtime.Errorf("", "handoff demotion names %q, which is not a node of %s", producer, hc.Graph.Name)), nil
	}
	var unskip []string
	for _, n := range hc.Graph.Nodes[start.Index():] {
		if _, skipped := hc.Skipped[n.ID]; skipped && hc.State.Skips[n.ID] != nil {
			unskip = append(unskip, n.ID)
		}
	}
	if hc.ReadOnly {
		if len(unskip) > 0 {
			return runtime.Blocked(hookImportHandoff, runtime.Errorf(hc.RelSpecDir,
				"handoff does not verify: %s — %s must run again (advance the work item to demote the walk)", why, producer)), nil
		}
		return runtime.OK(hookImportHandoff, map[string]any{"demoted": producer}), nil
	}
	dem := runtime.Demotion{Artifact: artifact, Node: producer, Reason: why, At: runtime.Now()}
	return runtime.OK(hookImportHandoff, map[string]any{
		"unskip":    unskip,
		"demotions": []runtime.Demotion{dem},
		"demoted":   producer,
	}), nil
}

// lockApprovedInChat writes status: approved, approvedBy and approvedVia into
// the artifacts the record says were approved in chat.
func lockApprovedInChat(hc *runtime.HookContext, d *specDir, rec handoff.Record) ([]lockedFile, error) {
	var locked []lockedFile
	author := strings.TrimPrefix(hc.State.Handoff.Author, "@")
	for _, name := range rec.ApprovedInChat {
		text, err := d.read(name)
		if err != nil {
			return nil, fmt.Errorf("read %s to lock it: %w", name, err)
		}
		fm, _ := markdown.SplitFrontMatter(text)
		if markdown.String(fm["status"]) == "approved" {
			continue
		}
		if hc.ReadOnly {
			continue
		}
		out, err := markdown.SetFrontMatter(text,
			markdown.Field{Key: "status", Value: "approved"},
			markdown.Field{Key: "approvedBy", Value: []string{author}},
			markdown.Field{Key: "approvedVia", Value: "handoff " + hc.State.Handoff.CommentURL})
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if err := d.writeAtomic(name, []byte(out)); err != nil {
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		locked = append(locked, lockedFile{name: name, hash: handoff.HashLF([]byte(out))})
	}
	return locked, nil
}

func init() { runtime.Register(hookImportHandoff, importHandoff) }
