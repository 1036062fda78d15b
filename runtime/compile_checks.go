package runtime

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkNodes refuses a skippable node without an on: skipped edge, a
// runtime-entered node that is not terminal, and a dead end.
func checkNodes(g *Graph, fail failFunc) error {
	for _, n := range g.Nodes {
		if n.Skippable || n.RequiresHandoff {
			if _, ok := g.Next(n.ID, "skipped"); !ok {
				return fail(0, "node %q is skippable but declares no edge for the outcome 'skipped'; add '{from: %s, to: <next>, on: skipped}'", n.ID, n.ID)
			}
		}
		if RuntimeEnteredNodes[n.ID] && !n.Terminal {
			return fail(0, "node %q is entered by the runtime and must be terminal: true", n.ID)
		}
		if !n.Terminal {
			out := false
			for _, e := range g.Edges {
				if e.From == n.ID {
					out = true
					break
				}
			}
			if !out {
				return fail(0, "node %q is a dead end: it is not terminal and no edge leaves it", n.ID)
			}
		}
	}
	return nil
}

func compileSkipSets(g *Graph, y *yaml.Node) error {
	g.SkipSets = map[string][]string{}
	if y.Kind == 0 {
		return nil
	}
	if y.Kind != yaml.MappingNode {
		return fmt.Errorf("skipSets must be a mapping of name -> node list")
	}
	for i := 0; i+1 < len(y.Content); i += 2 {
		name, v := y.Content[i].Value, y.Content[i+1]
		if v.Kind != yaml.SequenceNode {
			return fmt.Errorf("skip set %q must be a list of node ids", name)
		}
		var members []string
		if err := v.Decode(&members); err != nil {
			return fmt.Errorf("skip set %q must be a list of node ids", name)
		}
		for _, m := range members {
			n, ok := g.byID[m]
			if !ok || !n.Skippable {
				return fmt.Errorf("skip set %q names %q, which is not a declared skippable node — a set cannot widen the skip vocabulary", name, m)
			}
			if n.OptIn {
				return fmt.Errorf("skip set %q names %q, which is an opt-in node — it does not run unless it is selected, so declaring it skipped says nothing", name, m)
			}
		}
		g.SkipSets[name] = members
		g.setOrd = append(g.setOrd, name)
	}
	return nil
}

// compileRecords reads the graph's records: a list of file names, each a
// clean slash path inside the spec folder naming one file (no "|"
// alternatives, no "..", no leading /).
func compileRecords(g *Graph, y *yaml.Node) error {
	if y.Kind == 0 {
		return nil
	}
	var names []string
	if y.Kind != yaml.SequenceNode || y.Decode(&names) != nil {
		return fmt.Errorf("records must be a list of file names inside the spec folder")
	}
	for _, n := range names {
		if n == "" || strings.Contains(n, "|") || strings.Contains(n, "\\") || !filepath.IsLocal(n) || path.Clean(n) != n {
			return fmt.Errorf("record %q must name one file inside the spec folder as a clean slash path (no |, no .., no leading /), e.g. evidence/self-review.md", n)
		}
		if slices.Contains(g.Records, n) {
			return fmt.Errorf("record %q is listed twice", n)
		}
		g.Records = append(g.Records, n)
	}
	return nil
}

func checkReachable(g *Graph) error {
	seen := map[string]bool{g.Start: true}
	queue := []string{g.Start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range g.Edges {
			if e.From == cur && !seen[e.To] {
				seen[e.To] = true
				queue = append(queue, e.To)
			}
		}
	}
	var unreachable []string
	for _, n := range g.Nodes {
		if !seen[n.ID] && !RuntimeEnteredNodes[n.ID] {
			unreachable = append(unreachable, n.ID)
		}
	}
	if len(unreachable) > 0 {
		sort.Strings(unreachable)
		return fmt.Errorf("node %q is unreachable from the start node %q", unreachable[0], g.Start)
	}
	return nil
}
