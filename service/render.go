package service

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

// GraphText renders a loop for people: each node with its flags and its
// outgoing edges in declaration order.
func GraphText(g *runtime.Graph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s v%d, start: %s\n", g.Name, g.Version, g.Start)
	for _, n := range g.Nodes {
		var flags []string
		if n.Required {
			flags = append(flags, "required")
		}
		if n.OptIn {
			flags = append(flags, "opt-in")
		} else if n.Skippable {
			flags = append(flags, "skippable")
		}
		if n.RequiresHandoff {
			flags = append(flags, "requires-handoff")
		}
		if n.IsHuman() {
			flags = append(flags, "human")
		}
		if n.Terminal {
			flags = append(flags, "terminal")
		}
		line := "  " + n.ID
		if len(flags) > 0 {
			line += "  [" + strings.Join(flags, ", ") + "]"
		}
		b.WriteString(line + "\n")
		for _, e := range g.Edges {
			if e.From == n.ID {
				fmt.Fprintf(&b, "      --%s--> %s\n", e.On, e.To)
			}
		}
	}
	return b.String()
}

// Mermaid renders a loop as a mermaid flowchart, generated from the YAML so
// docs/process.md cannot drift from what ships.
func Mermaid(g *runtime.Graph) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	id := func(s string) string { return strings.ReplaceAll(s, "-", "_") }
	for _, n := range g.Nodes {
		label := n.ID
		switch {
		case n.IsHuman() && n.Terminal:
			fmt.Fprintf(&b, "  %s([%s])\n", id(n.ID), label)
		case n.IsHuman():
			fmt.Fprintf(&b, "  %s{{%s}}\n", id(n.ID), label)
		case n.Terminal:
			fmt.Fprintf(&b, "  %s([%s])\n", id(n.ID), label)
		case n.Actor == runtime.ActorCode:
			fmt.Fprintf(&b, "  %s[/%s/]\n", id(n.ID), label)
		default:
			fmt.Fprintf(&b, "  %s[%s]\n", id(n.ID), label)
		}
	}
	for _, e := range g.Edges {
		arrow := "-->"
		if e.On == "skipped" {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "  %s %s|%s| %s\n", id(e.From), arrow, e.On, id(e.To))
	}
	var optional []string
	for _, n := range g.Nodes {
		if n.OptIn {
			optional = append(optional, id(n.ID))
		}
	}
	if len(optional) > 0 {
		b.WriteString("  classDef optin stroke-dasharray: 5 5\n")
		fmt.Fprintf(&b, "  class %s optin\n", strings.Join(optional, ","))
	}
	return b.String()
}

// ClaimText renders a completion claim's verdict for people: the claimed
// node (the work item when none was resolved), its status and where the
// item now stands, then the messages to act on.
func ClaimText(env runtime.ClaimAnswer, workItem string) string {
	claimed := env.Node
	if claimed == "" {
		claimed = workItem
	}
	text := fmt.Sprintf("%s: %s (%s) — now at %s", claimed, env.Status, env.Outcome, env.CurrentNode)
	if env.Reason != "" {
		text = fmt.Sprintf("%s: %s (%s)", claimed, env.Status, env.Reason)
	}
	if len(env.Messages) > 0 {
		text += "\n- " + strings.Join(env.Messages, "\n- ")
	}
	return text
}
