package checklist

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime/authz"
)

func ticks(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}

// Confirmation renders the comment that records a selection signed by by.
// defaultMode is the pr-sessions mode that applies when nothing was chosen.
// The caller adds the self-authored marker when posting it.
func Confirmation(sel Selection, by string, o Options, defaultMode string) string {
	who := authz.At(by)
	var b strings.Builder
	b.WriteString("🤖 _the-loop_ — **phase selection recorded**\n\n")
	if len(sel.Skips) > 0 {
		fmt.Fprintf(&b, "Skipped, as %s declared: %s. Each is a declaration, not a verdict: `the-loop check` reports it as skipped by declaration, and every other phase still gates this work item.\n\n", who, ticks(sel.SkipNodes()))
	} else {
		fmt.Fprintf(&b, "%s kept every default phase: the full process runs.\n\n", who)
	}
	switch {
	case len(sel.OptIns) > 0:
		fmt.Fprintf(&b, "Also running, as %s asked: %s.\n\n", who, ticks(sel.OptIns))
	case len(sel.NotSelected) > 0:
		fmt.Fprintf(&b, "Offered and not selected, so not running: %s.\n\n", ticks(sel.NotSelected))
	}
	if len(sel.Refused) > 0 {
		fmt.Fprintf(&b, "**Not skippable, so still running:** %s.\n\n", ticks(sel.Refused))
	}
	if len(sel.Ignored) > 0 {
		fmt.Fprintf(&b, "Not on this checklist, so ignored: %s.\n\n", ticks(sel.Ignored))
	}
	switch sel.Surface {
	case SurfacePullRequest:
		fmt.Fprintf(&b, "The outer loop is iterated **on a pull request** in this repository, as %s chose.\n\n", who)
	case SurfaceWorkItem:
		b.WriteString("The outer loop is iterated **here, on this work item** (the default).\n\n")
	}
	mode, how := sel.SessionPerPR, "as "+who+" chose"
	if mode == "" {
		mode, how = defaultMode, "no choice was made, so the operator's default applies"
	}
	fmt.Fprintf(&b, "Pull requests of this work item: **`%s`** — %s (%s).\n\n", mode, sessionRowText[mode], how)
	if len(o.Models) > 0 {
		b.WriteString(choiceLine("Model", sel.Model, who))
	}
	if len(o.Efforts) > 0 {
		b.WriteString(choiceLine("Effort", sel.Effort, who))
	}
	if len(o.Harnesses) > 0 {
		if sel.Harness == "" {
			b.WriteString("Harness: no choice — the configured harness runs.\n\n")
		} else {
			b.WriteString(choiceLine("Harness", sel.Harness, who))
		}
	}
	if sel.ArmChildren {
		fmt.Fprintf(&b, "Children: armed in dependency order, each when its blockers finish, as %s chose; each still gets its own phase selection.\n\n", who)
	}
	b.WriteString("Starting the loop.\n")
	return b.String()
}

func choiceLine(what, choice, who string) string {
	if choice == "" {
		return what + ": no choice — the harness's own setting applies.\n\n"
	}
	return fmt.Sprintf("%s: `%s`, as %s chose.\n\n", what, choice, who)
}
