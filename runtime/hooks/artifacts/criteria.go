package artifacts

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookSuccessCriteria holds verification to the recorded goal.
const HookSuccessCriteria = "check-success-criteria"

// CheckSuccessCriteria holds verification of a contribution to its goal:
// each success criterion frozen at goal-definition must stand as a ticked
// box ("- [x] <criterion>") in the first present file of param `in`
// (default contribution.md, then evidence/verification.md). A criterion
// left out, reworded past recognition, or unticked blocks; with no recorded
// goal there is nothing to verify against, which blocks too (fail closed).
func CheckSuccessCriteria(hc *runtime.HookContext) (runtime.Result, error) {
	var criteria []string
	if d := hc.State.Decisions["goal-definition"]; d != nil {
		goal, _ := d.Data["goal"].(map[string]any)
		criteria = stringList(goal["criteria"])
	}
	if len(criteria) == 0 {
		return runtime.Blocked(HookSuccessCriteria, runtime.Errorf(hc.RelSpecDir,
			"no recorded goal with success criteria to verify against; goal-definition must be answered first")), nil
	}
	files := hc.ListParam("in")
	if len(files) == 0 {
		files = []string{"contribution.md", "evidence/verification.md"}
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	for _, name := range files {
		if !d.Present(name) {
			continue
		}
		text, err := d.Read(name)
		if err != nil {
			return runtime.Blocked(HookSuccessCriteria, runtime.Errorf(d.Rel(name), "artifact could not be read: %v", err)), nil
		}
		ticked := tickedItems(d.Parse(name, text).Body)
		var msgs []runtime.Message
		for _, c := range criteria {
			if !tickedCriterion(ticked, normalizeCriterion(c)) {
				msgs = append(msgs, runtime.Errorf(d.Rel(name), "success criterion is not ticked: %s", c))
			}
		}
		if len(msgs) > 0 {
			return runtime.Blocked(HookSuccessCriteria, msgs...), nil
		}
		return runtime.OK(HookSuccessCriteria, map[string]any{"criteria": len(criteria), "in": d.Rel(name)}), nil
	}
	return runtime.Blocked(HookSuccessCriteria, runtime.Errorf(hc.RelSpecDir,
		"no file lists the success criteria — tick each one in %s", strings.Join(files, " or "))), nil
}

// tickedItems are the normalised texts of the ticked, unquoted boxes.
func tickedItems(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		l := strings.TrimSpace(line)
		for _, box := range []string{"- [x] ", "- [X] ", "* [x] ", "* [X] "} {
			if strings.HasPrefix(l, box) {
				out = append(out, normalizeCriterion(l[len(box):]))
			}
		}
	}
	return out
}

// tickedCriterion reports a ticked box stating criterion c, alone or
// followed by evidence after punctuation ("- [x] export works — see log").
func tickedCriterion(ticked []string, c string) bool {
	for _, t := range ticked {
		if t == c {
			return true
		}
		if strings.HasPrefix(t, c) {
			next := t[len(c)]
			if !(next >= 'a' && next <= 'z' || next >= '0' && next <= '9' || next == '_') {
				return true
			}
		}
	}
	return false
}

// normalizeCriterion compares criteria by their words, ASCII-case-folded.
func normalizeCriterion(s string) string {
	return markdown.LowerASCII(strings.Join(strings.Fields(strings.Trim(s, " .")), " "))
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}
