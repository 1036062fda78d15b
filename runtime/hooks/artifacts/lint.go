package artifacts

import (
	"fmt"

	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookLint lints the node's own artifacts.
const HookLint = "lint-artifacts"

// LintArtifacts checks the node's own products (never `validates` files)
// for mermaid blocks that will not render and, when maxLineLength is set,
// for over-long prose lines. A diagram of a type the mermaid parser does not
// read is not a fault: it is named in an info message ("mermaid diagram type
// X is not checked") on the result, whatever the verdict.
func LintArtifacts(hc *runtime.HookContext) (runtime.Result, error) {
	diagrams := true
	if v, ok := hc.Params["diagrams"]; ok && v != nil {
		diagrams = runtime.Truthy(v)
	}
	limit, err := hc.IntParam("maxLineLength", 0)
	if err != nil {
		return runtime.Result{}, err
	}
	if limit < 0 {
		return runtime.Result{}, fmt.Errorf("maxLineLength must be a positive number of characters, got %d", limit)
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	produced := specdir.NodeSlots(hc)
	if bad := d.RefuseUnsafeNames(produced); len(bad) > 0 {
		return runtime.Final(HookLint, bad...), nil
	}
	var names []string
	for _, s := range produced {
		names = append(names, d.PresentOf(s)...)
	}
	if len(names) == 0 {
		return runtime.Skipped(HookLint, "no artifacts to lint"), nil
	}

	var findings, notes []runtime.Message
	for _, n := range names {
		path := d.Rel(n)
		text, err := d.Read(n)
		if err != nil {
			findings = append(findings, runtime.Errorf(path, "artifact could not be read: %v", err))
			continue
		}
		if diagrams {
			faults, unchecked := markdown.CheckMermaid(markdown.MermaidBlocks(text))
			for _, f := range faults {
				findings = append(findings, runtime.Errorf(path, "%s", f))
			}
			for _, u := range unchecked {
				notes = append(notes, runtime.Message{Text: u, Path: path, Severity: runtime.SevInfo})
			}
		}
		for _, line := range markdown.LongLines(text, limit) {
			findings = append(findings, runtime.Errorf(path, "line %d exceeds %d characters", line, limit))
		}
	}
	if len(findings) > 0 {
		return runtime.Blocked(HookLint, append(findings, notes...)...), nil
	}
	linted := make([]string, len(names))
	for i, n := range names {
		linted[i] = d.Rel(n)
	}
	res := runtime.OK(HookLint, map[string]any{"linted": linted})
	res.Messages = notes
	return res, nil
}
