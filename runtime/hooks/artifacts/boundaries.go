package artifacts

import (
	"bytes"
	"fmt"
	"strings"

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
	up, err := bodyTexts(d, upNames)
	if err != nil {
		return runtime.Result{}, err
	}
	down, err := bodyTexts(d, downNames)
	if err != nil {
		return runtime.Result{}, err
	}

	var msgs []runtime.Message
	for _, marker := range hc.ListParam("markers") {
		m := []byte(markdown.LowerASCII(marker))
		if len(m) == 0 {
			continue
		}
		if mentioned(up, m) && !mentioned(down, m) {
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

// bodyTexts reads each file and returns its body without front matter
// (specdir.BodyText, made once per evaluation whichever nodes ask). A read
// failure is a hook failure (a non-retriable block).
func bodyTexts(d *specdir.Dir, names []string) ([]*specdir.BodyText, error) {
	bodies := make([]*specdir.BodyText, len(names))
	for i, n := range names {
		text, err := d.Read(n)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", d.Rel(n), err)
		}
		bodies[i] = d.BodyText(n, text)
	}
	return bodies, nil
}

// mentioned reports whether the bodies, read as one text (joined by
// newlines, in order), hold marker (lowered), regardless of ASCII case. A
// marker without a newline cannot span two bodies, so each is asked on its
// own (and remembers the answer for the next node that asks), without
// joining them.
func mentioned(bodies []*specdir.BodyText, marker []byte) bool {
	if bytes.IndexByte(marker, '\n') >= 0 {
		joined := make([]string, len(bodies))
		for i, b := range bodies {
			joined[i] = b.String()
		}
		return strings.Contains(markdown.LowerASCII(strings.Join(joined, "\n")), string(marker))
	}
	for _, b := range bodies {
		if b.ContainsFold(marker) {
			return true
		}
	}
	return false
}
