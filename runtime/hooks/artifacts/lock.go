package artifacts

import (
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookLock locks what a human gate approved.
const HookLock = "lock-artifacts"

// LockArtifacts records an approval in the artifacts it covers: when an
// earlier hook of this chain decided the gate approved, each present
// artifact named by the `artifacts` parameter gets front matter
// `status: approved` and `approvedBy: [<approvers>]`, every other key and the
// body kept as they are. Under check it writes nothing and instead verifies
// the lock is already in place.
func LockArtifacts(hc *runtime.HookContext) (runtime.Result, error) {
	decision, ok := gateDecision(hc.Results)
	switch {
	case !ok:
		return runtime.Skipped(HookLock, "no gate decision in this chain; nothing to lock"), nil
	case decision.outcome == runtime.OutcomeChangesRequested:
		return runtime.Skipped(HookLock, "changes were requested; nothing is locked"), nil
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	slots := specdir.ParamSlots(hc, "artifacts")
	if bad := d.RefuseUnsafeNames(slots); len(bad) > 0 {
		return runtime.Final(HookLock, bad...), nil
	}
	var names []string
	for _, s := range slots {
		names = append(names, d.PresentOf(s)...)
	}
	if len(names) == 0 {
		return runtime.Skipped(HookLock, "no artifact to lock"), nil
	}

	var findings []runtime.Message
	locked := make([]string, 0, len(names))
	for _, n := range names {
		path := d.Rel(n)
		text, err := d.Read(n)
		if err != nil {
			findings = append(findings, runtime.Errorf(path, "artifact could not be read: %v", err))
			continue
		}
		if hc.ReadOnly {
			fm, _ := markdown.SplitFrontMatter(text)
			if msg, ok := lockFinding(fm); !ok {
				findings = append(findings, runtime.Errorf(path, "%s", msg))
				continue
			}
			locked = append(locked, path)
			continue
		}
		if len(decision.approvers) == 0 {
			findings = append(findings, runtime.Errorf(path, "the %s decision names no approver, so the artifact cannot be locked", decision.hook))
			continue
		}
		out, err := markdown.SetFrontMatter(text,
			markdown.Field{Key: "status", Value: "approved"},
			markdown.Field{Key: "approvedBy", Value: decision.approvers})
		if err != nil {
			findings = append(findings, runtime.Errorf(path, "artifact could not be locked: %v", err))
			continue
		}
		if out != text {
			if err := d.WriteAtomic(n, []byte(out)); err != nil {
				findings = append(findings, runtime.Errorf(path, "artifact could not be locked: %v", err))
				continue
			}
		}
		locked = append(locked, path)
	}
	if len(findings) > 0 {
		return runtime.Blocked(HookLock, findings...), nil
	}
	if !hc.ReadOnly {
		recordLockedHashes(hc, d, names)
	}
	return runtime.OK(HookLock, map[string]any{"locked": locked, "approvedBy": decision.approvers}), nil
}

// recordLockedHashes puts, for every file just locked, the hash of its
// bytes (lockedHashes) and of its approved form (boundHashes) into the
// gate's decision (signed by the engine when the chain passes), so what the
// human approved stays tied to those exact bytes: a front-matter field the
// agent edits afterwards (riskTier, say) no longer carries the approval, and
// check finds the gate open again (CheckBinding).
func recordLockedHashes(hc *runtime.HookContext, d *specdir.Dir, names []string) {
	for i := len(hc.Results) - 1; i >= 0; i-- {
		dec, ok := hc.Results[i].Data["decision"].(*runtime.Decision)
		if !ok || dec == nil {
			continue
		}
		hashes, bound := map[string]any{}, map[string]any{}
		for _, n := range names {
			if b, err := d.Bytes(n); err == nil {
				hashes[n] = handoff.HashLF(b)
				bound[n] = boundHash(hc.Graph, hc.Node, n, b)
			}
		}
		if dec.Data == nil {
			dec.Data = map[string]any{}
		}
		dec.Data[lockedHashesKey] = hashes
		dec.Data[boundHashesKey] = bound
		return
	}
}

// LockedHashOf is the hash a gate decision recorded for name ("" when none).
func LockedHashOf(dec *runtime.Decision, name string) string {
	return hashesOf(dec, lockedHashesKey)[name]
}

// decision is the gate verdict an earlier hook of the chain reported.
type decision struct {
	hook      string
	outcome   string
	approvers []string
}

// gateDecision finds the last earlier result whose data.outcome is a gate
// outcome (approved, approved-with-comments, changes-requested).
func gateDecision(results []runtime.Result) (decision, bool) {
	for i := len(results) - 1; i >= 0; i-- {
		r := results[i]
		o, _ := r.Data["outcome"].(string)
		switch o {
		case runtime.OutcomeApproved, runtime.OutcomeApprovedWithComments, runtime.OutcomeChangesRequested:
			return decision{hook: r.Hook, outcome: o, approvers: approvers(r.Data["comments"])}, true
		}
	}
	return decision{}, false
}

// approvers returns the distinct comment authors (leading @ dropped) in
// order. Comments may be []integrations.Comment (the gate's own type) or
// decoded maps with an "Author"/"author" field (a string or {login: …}).
func approvers(comments any) []string {
	var raw []string
	switch cs := comments.(type) {
	case []integrations.Comment:
		for _, c := range cs {
			raw = append(raw, c.Author)
		}
	case []*integrations.Comment:
		for _, c := range cs {
			if c != nil {
				raw = append(raw, c.Author)
			}
		}
	case []map[string]any:
		for _, c := range cs {
			raw = append(raw, authorOf(c))
		}
	case []any:
		for _, e := range cs {
			switch c := e.(type) {
			case integrations.Comment:
				raw = append(raw, c.Author)
			case *integrations.Comment:
				if c != nil {
					raw = append(raw, c.Author)
				}
			case map[string]any:
				raw = append(raw, authorOf(c))
			}
		}
	}
	seen := map[string]bool{}
	out := []string{}
	for _, a := range raw {
		a = strings.TrimPrefix(strings.TrimSpace(a), "@")
		if a == "" || seen[a] {
			continue
		}
		seen[a] = true
		out = append(out, a)
	}
	return out
}

func authorOf(c map[string]any) string {
	for _, k := range []string{"Author", "author"} {
		switch a := c[k].(type) {
		case string:
			return a
		case map[string]any:
			if l, ok := a["login"].(string); ok {
				return l
			}
		}
	}
	return ""
}
