package hooks

import (
	"fmt"
	"math"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/markdown"
)

const hookLint = "lint-artifacts"

// lintArtifacts checks the node's own products (never `validates` files)
// for mermaid blocks that will not render and, when maxLineLength is set,
// for over-long prose lines. A diagram of a type the mermaid parser does not
// read is not a fault: it is named in an info message ("mermaid diagram type
// X is not checked") on the result, whatever the verdict.
func lintArtifacts(hc *runtime.HookContext) (runtime.Result, error) {
	diagrams := true
	if v, ok := hc.Params["diagrams"]; ok && v != nil {
		diagrams = truthy(v)
	}
	limit, err := intParam(hc, "maxLineLength", 0)
	if err != nil {
		return runtime.Result{}, err
	}
	if limit < 0 {
		return runtime.Result{}, fmt.Errorf("maxLineLength must be a positive number of characters, got %d", limit)
	}
	d, err := openSpecDir(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	produced := nodeSlots(hc)
	if bad := d.refuseUnsafeNames(produced); len(bad) > 0 {
		return final(hookLint, bad...), nil
	}
	var names []string
	for _, s := range produced {
		names = append(names, d.presentOf(s)...)
	}
	if len(names) == 0 {
		return runtime.Skipped(hookLint, "no artifacts to lint"), nil
	}

	var findings, notes []runtime.Message
	for _, n := range names {
		path := d.rel(n)
		text, err := d.read(n)
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
		return runtime.Blocked(hookLint, append(findings, notes...)...), nil
	}
	linted := make([]string, len(names))
	for i, n := range names {
		linted[i] = d.rel(n)
	}
	res := runtime.OK(hookLint, map[string]any{"linted": linted})
	res.Messages = notes
	return res, nil
}

// intParam reads an integer parameter (def when absent); a non-integer
// value is an error naming the parameter.
func intParam(hc *runtime.HookContext, key string, def int) (int, error) {
	v, ok := hc.Params[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case uint64:
		if x <= math.MaxInt32 {
			return int(x), nil
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= math.MaxInt32 {
			return int(x), nil
		}
	}
	return 0, fmt.Errorf("%s must be a whole number, got %v (%T)", key, v, v)
}
