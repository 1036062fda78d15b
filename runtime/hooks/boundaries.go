package hooks

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/markdown"
)

const hookBoundaries = "enforces-boundaries-from"

// enforcesBoundariesFrom makes a downstream artifact answer the boundaries
// its upstream names: every marker (case-insensitive substring, e.g. "trust
// boundary") found in the upstream bodies must also appear in the bodies of
// the node's own products.
func enforcesBoundariesFrom(hc *runtime.HookContext) (runtime.Result, error) {
	upstream := paramSlots(hc, "upstream")
	if len(upstream) == 0 {
		return runtime.Skipped(hookBoundaries, "no upstream artifact declared"), nil
	}
	d, err := openSpecDir(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	produced := nodeSlots(hc)
	if bad := d.refuseUnsafeNames(upstream, produced); len(bad) > 0 {
		return final(hookBoundaries, bad...), nil
	}

	var upNames, downNames []string
	for _, s := range upstream {
		upNames = append(upNames, d.presentOf(s)...)
	}
	for _, s := range produced {
		downNames = append(downNames, d.presentOf(s)...)
	}
	if len(upNames) == 0 || len(produced) == 0 {
		return runtime.Skipped(hookBoundaries, "upstream or downstream artifact absent"), nil
	}
	up, err := joinedBodies(d, upNames)
	if err != nil {
		return runtime.Result{}, err
	}
	down, err := joinedBodies(d, downNames)
	if err != nil {
		return runtime.Result{}, err
	}

	var msgs []runtime.Message
	for _, marker := range hc.ListParam("markers") {
		m := markdown.LowerASCII(marker)
		if m == "" {
			continue
		}
		if markdown.ContainsFoldASCII(up, m) && !markdown.ContainsFoldASCII(down, m) {
			msgs = append(msgs, runtime.Message{Text: "boundary named upstream is unanswered here: " + marker, Severity: runtime.SevError})
		}
	}
	if len(msgs) > 0 {
		return runtime.Blocked(hookBoundaries, msgs...), nil
	}
	rels := make([]string, len(upNames))
	for i, n := range upNames {
		rels[i] = d.rel(n)
	}
	return runtime.OK(hookBoundaries, map[string]any{"upstream": rels}), nil
}

// joinedBodies reads each file, drops its front matter, and joins the
// bodies. A read failure is a hook failure (a non-retriable block).
func joinedBodies(d *specDir, names []string) (string, error) {
	parts := make([]string, 0, len(names))
	for _, n := range names {
		text, err := d.read(n)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", d.rel(n), err)
		}
		parts = append(parts, d.parse(n, text).body)
	}
	return strings.Join(parts, "\n"), nil
}
