package artifacts

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookValidate gates a node on its artifacts.
const HookValidate = "validate-artifacts"

// contentChecks are the validate-artifacts parameters that read an
// artifact's text.
type contentChecks struct {
	locked      bool
	frontMatter map[string]any
	sections    []string
	// checkmarks is true for `checkmarks: complete`; any other truthy value
	// still counts as a declared content check.
	checkmarks bool
	anyChecks  bool
}

func (c contentChecks) declared() bool {
	return c.locked || len(c.frontMatter) > 0 || len(c.sections) > 0 || c.checkmarks || c.anyChecks
}

func parseContentChecks(hc *runtime.HookContext) (contentChecks, error) {
	c := contentChecks{
		locked:     runtime.Truthy(hc.Params["locked"]),
		sections:   hc.ListParam("sections"),
		checkmarks: hc.Param("checkmarks") == "complete",
		anyChecks:  runtime.Truthy(hc.Params["checkmarks"]),
	}
	switch fm := hc.Params["frontMatter"].(type) {
	case nil:
	case map[string]any:
		c.frontMatter = fm
	default:
		if runtime.Truthy(fm) {
			return c, fmt.Errorf("frontMatter must be a mapping of front-matter key to expected value, got %T", fm)
		}
	}
	return c, nil
}

// ValidateArtifacts gates a node on its artifacts: every slot the node
// produces (and every slot named by `validates`) must resolve to exactly one
// present file, and each file must pass the declared content checks. All
// findings arrive in one block.
//
// Planned absence: a slot whose every accepted name is in
// hc.SkippedArtifacts may be absent. The engine builds that set so that a
// planned absence excuses only the node whose own product is absent —
// skipping a later node that re-gates an earlier artifact (verification
// re-gating testing-plan.md) does not excuse the earlier author
// (test-planning). This hook therefore trusts the set as given.
func ValidateArtifacts(hc *runtime.HookContext) (runtime.Result, error) {
	checks, err := parseContentChecks(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()

	produced := specdir.NodeSlots(hc)
	validated := specdir.ParamSlots(hc, "validates")
	onlyRaw, onlySet := hc.Params["onlyWhenSkipped"]
	onlySet = onlySet && runtime.Truthy(onlyRaw)
	var conditional []specdir.Slot
	if onlySet {
		conditional = specdir.ParamSlots(hc, "onlyWhenSkipped")
	}
	if bad := d.RefuseUnsafeNames(produced, validated, conditional); len(bad) > 0 {
		return runtime.Final(HookValidate, bad...), nil
	}

	if onlySet {
		if res, skip := onlyWhenSkipped(hc, d, onlyRaw, conditional); skip {
			return res, nil
		}
	}

	slots := append(append([]specdir.Slot{}, produced...), validated...)
	if len(slots) == 0 {
		if checks.declared() {
			return runtime.Final(HookValidate, runtime.Errorf(d.Rel(""),
				"this node gates on artifact content but names no artifact to read it from — the graph must declare `produces:` on the node or `validates:` on this hook entry")), nil
		}
		return runtime.Skipped(HookValidate, "this node declares no artifacts"), nil
	}

	if res, skip := optionalAbsent(hc, d, produced, validated); skip {
		return res, nil
	}

	var findings []runtime.Message
	var queued []string
	covered := 0
	for _, s := range slots {
		present := d.PresentOf(s)
		switch {
		case len(present) == 0 && allSkipped(hc, s):
			covered++
		case len(present) == 0 && len(s.Names) > 1:
			findings = append(findings, runtime.Errorf(d.Rel(""), "required artifact is missing — write one of: %s", s.Label()))
		case len(present) == 0:
			findings = append(findings, runtime.Errorf(d.Rel(s.Names[0]), "required artifact is missing"))
		case len(present) > 1:
			findings = append(findings, runtime.Errorf(d.Rel(""), "%d artifacts present where one is expected — keep one of: %s",
				len(present), strings.Join(present, ", ")))
		default:
			queued = append(queued, present[0])
		}
	}

	checked := make([]string, 0, len(queued))
	for _, name := range queued {
		findings = append(findings, checkContent(d, name, checks)...)
		checked = append(checked, d.AbsPath(name))
	}

	switch {
	case len(findings) > 0:
		return runtime.Blocked(HookValidate, findings...), nil
	case covered > 0 && len(queued) == 0:
		return runtime.Skipped(HookValidate, "artifact(s) authored by a declared-skipped node; absence is planned"), nil
	}
	return runtime.OK(HookValidate, map[string]any{"artifacts": checked}), nil
}

// checkContent runs the declared content checks on one present artifact.
func checkContent(d *specdir.Dir, name string, c contentChecks) []runtime.Message {
	path := func() string { return d.Rel(name) } // for messages only
	text, err := d.Read(name)
	if err != nil {
		return []runtime.Message{runtime.Errorf(path(), "artifact could not be read: %v", err)}
	}
	pa := d.Parse(name, text)
	fm, body := pa.FrontMatter, pa.Body
	var out []runtime.Message
	if c.locked {
		if msg, ok := lockFinding(fm); !ok {
			out = append(out, runtime.Errorf(path(), "%s", msg))
		}
	}
	keys := make([]string, 0, len(c.frontMatter))
	for k := range c.frontMatter {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := c.frontMatter[k]
		got, has := fm[k]
		if has && got != nil && want != nil && markdown.String(got) == markdown.String(want) {
			continue
		}
		if (!has || got == nil) && want == nil {
			continue
		}
		out = append(out, runtime.Errorf(path(), "front-matter %s: expected %s, found %s", k, showValue(want, true), showValue(got, has)))
	}
	if len(c.sections) > 0 {
		secs := pa.Sections
		for _, want := range c.sections {
			want = strings.TrimSpace(want)
			content, ok := secs[want]
			switch {
			case !ok:
				out = append(out, runtime.Errorf(path(), "required section is missing: %s", want))
			case content == "":
				out = append(out, runtime.Errorf(path(), "required section is empty: %s", want))
			}
		}
	}
	if c.checkmarks {
		if n := markdown.CountUnticked(body); n > 0 {
			out = append(out, runtime.Errorf(path(), "%d task(s) still unticked", n))
		}
	}
	return out
}

// lockFinding checks front-matter status: approved; it returns the
// not-locked message and false when the artifact is not locked.
func lockFinding(fm map[string]any) (string, bool) {
	status := strings.TrimSpace(markdown.String(fm["status"]))
	if status == "approved" {
		return "", true
	}
	if status == "" {
		status = "(unset)"
	}
	return "artifact is not locked — front-matter says status: " + status + ", expected status: approved", false
}

// showValue quotes strings and prints other values plainly; a missing key
// reads as (unset).
func showValue(v any, present bool) string {
	switch x := v.(type) {
	case nil:
		if !present {
			return "(unset)"
		}
		return "null"
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

// allSkipped reports whether every name the slot accepts is a planned
// absence.
func allSkipped(hc *runtime.HookContext, s specdir.Slot) bool {
	for _, n := range s.Names {
		if !hc.SkippedArtifacts[n] {
			return false
		}
	}
	return len(s.Names) > 0
}

func anyPresent(d *specdir.Dir, slots []specdir.Slot) bool {
	for _, s := range slots {
		if len(d.PresentOf(s)) > 0 {
			return true
		}
	}
	return false
}

// onlyWhenSkipped skips an entry gated on onlyWhenSkipped unless every
// slot it names was declared skipped and is absent.
func onlyWhenSkipped(hc *runtime.HookContext, d *specdir.Dir, raw any, conditional []specdir.Slot) (runtime.Result, bool) {
	if len(conditional) == 0 {
		return runtime.Skipped(HookValidate, "onlyWhenSkipped names no artifact: "+strconv.Quote(fmt.Sprint(raw))), true
	}
	for _, s := range conditional {
		if !allSkipped(hc, s) {
			return runtime.Skipped(HookValidate, s.Label()+" was not declared skipped"), true
		}
		if len(d.PresentOf(s)) > 0 {
			return runtime.Skipped(HookValidate, s.Label()+" exists; it is gated where it is declared"), true
		}
	}
	return runtime.Result{}, false
}

// optionalAbsent skips an optional node that produced nothing; whenAbsent
// lets the graph route it past the gate that would review it.
func optionalAbsent(hc *runtime.HookContext, d *specdir.Dir, produced, validated []specdir.Slot) (runtime.Result, bool) {
	if hc.Node == nil || !hc.Node.Optional {
		return runtime.Result{}, false
	}
	own := produced
	if len(own) == 0 {
		own = validated
	}
	if anyPresent(d, own) {
		return runtime.Result{}, false
	}
	res := runtime.Skipped(HookValidate, "optional node; no artifact was produced")
	if o := hc.Param("whenAbsent"); o != "" {
		res.Data = map[string]any{"outcome": o}
	}
	return res, true
}
