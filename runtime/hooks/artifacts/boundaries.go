package artifacts

import (
	"bytes"
	"fmt"

	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookBoundaries makes a downstream artifact answer its upstream boundaries.
const HookBoundaries = "enforces-boundaries-from"

// EnforceBoundaries makes a downstream artifact answer the boundaries
// its upstream names: every marker (case-insensitive substring, e.g. "trust
// boundary") found in the upstream bodies must also appear in the bodies of
// the node's own products.
func EnforceBoundaries(hc *runtime.HookContext) (runtime.Result, error) {
	upstream := specdir.ParamSlots(hc, "upstream")
	if len(upstream) == 0 {
		return runtime.Skipped(HookBoundaries, "no upstream artifact declared"), nil
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	produced := specdir.NodeSlots(hc)
	if bad := d.RefuseUnsafeNames(upstream, produced); len(bad) > 0 {
		return runtime.Final(HookBoundaries, bad...), nil
	}

	var upNames, downNames []string
	for _, s := range upstream {
		upNames = append(upNames, d.PresentOf(s)...)
	}
	for _, s := range produced {
		downNames = append(downNames, d.PresentOf(s)...)
	}
	if len(upNames) == 0 || len(produced) == 0 {
		return runtime.Skipped(HookBoundaries, "upstream or downstream artifact absent"), nil
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
		if mb := []byte(m); bytes.Contains(up, mb) && !bytes.Contains(down, mb) {
			msgs = append(msgs, runtime.Message{Text: "boundary named upstream is unanswered here: " + marker, Severity: runtime.SevError})
		}
	}
	if len(msgs) > 0 {
		return runtime.Blocked(HookBoundaries, msgs...), nil
	}
	rels := make([]string, len(upNames))
	for i, n := range upNames {
		rels[i] = d.Rel(n)
	}
	return runtime.OK(HookBoundaries, map[string]any{"upstream": rels}), nil
}

// joinedBodies reads each file, drops its front matter, and joins the
// bodies, in lower case (ASCII letters): the markers, lowered too, are
// then found by bytes.Contains. A read failure is a hook failure (a
// non-retriable block).
func joinedBodies(d *specdir.Dir, names []string) ([]byte, error) {
	bodies := make([]string, len(names))
	size := len(names)
	for i, n := range names {
		text, err := d.Read(n)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", d.Rel(n), err)
		}
		bodies[i] = d.Parse(n, text).Body
		size += len(bodies[i])
	}
	b := make([]byte, 0, size)
	for i, body := range bodies {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, body...)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b, nil
}
