package runtime

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// GraphConfigError is a structural fault in a graph, found at start-up.
type GraphConfigError struct {
	Graph string // graph name or file
	Line  int    // YAML line, 0 when unknown
	Msg   string
}

func (e *GraphConfigError) Error() string {
	loc := e.Graph
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.Graph, e.Line)
	}
	return fmt.Sprintf("graph %s: %s", loc, e.Msg)
}

// RuntimeEnteredNodes are entered by the runtime itself (cleanup on close,
// escalated on escalation or force), never by an edge; they must be terminal
// and are exempt from the reachability rule.
var RuntimeEnteredNodes = map[string]bool{"cleanup": true, "escalated": true}

type rawNode struct {
	ID              string      `yaml:"id"`
	Actor           string      `yaml:"actor"`
	Phase           string      `yaml:"phase"`
	Stage           string      `yaml:"stage"`
	Command         string      `yaml:"command"`
	Session         string      `yaml:"session"`
	Produces        yaml.Node   `yaml:"produces"`
	Required        bool        `yaml:"required"`
	Optional        bool        `yaml:"optional"`
	Skippable       bool        `yaml:"skippable"`
	OptIn           bool        `yaml:"optIn"`
	Description     string      `yaml:"description"`
	MaxAttempts     *int        `yaml:"maxAttempts"`
	Terminal        bool        `yaml:"terminal"`
	RequiresHandoff bool        `yaml:"requiresHandoff"`
	Entry           []yaml.Node `yaml:"entry"`
	Exit            []yaml.Node `yaml:"exit"`
}

// Compile parses and validates a graph document against reg, returning the
// frozen graph or the first structural fault, naming the element.
func Compile(name string, data []byte, reg *Registry) (*Graph, error) {
	var fail failFunc = func(line int, format string, args ...any) error {
		return &GraphConfigError{Graph: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fail(0, "not valid YAML: %v", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fail(0, "the graph must be a mapping")
	}
	top := doc.Content[0]
	if err := knownKeys(top, "graph", "version", "name", "start", "nodes", "edges", "skipSets", "records", "description"); err != nil {
		return nil, fail(err.line, "%s", err.msg)
	}
	var raw struct {
		Version  int         `yaml:"version"`
		Name     string      `yaml:"name"`
		Start    string      `yaml:"start"`
		Nodes    []yaml.Node `yaml:"nodes"`
		Edges    []yaml.Node `yaml:"edges"`
		SkipSets yaml.Node   `yaml:"skipSets"`
		Records  yaml.Node   `yaml:"records"`
		Desc     string      `yaml:"description"`
	}
	if err := top.Decode(&raw); err != nil {
		return nil, fail(0, "%v", err)
	}
	g := &Graph{Version: raw.Version, Name: raw.Name, byID: map[string]*Node{}, byEdge: map[[2]string]string{}}
	if g.Version == 0 {
		g.Version = 1
	}
	if g.Name == "" {
		g.Name = name
	}
	if len(raw.Nodes) == 0 {
		return nil, fail(top.Line, "the graph declares no nodes")
	}
	if err := compileNodes(g, raw.Nodes, reg, fail); err != nil {
		return nil, err
	}
	if err := compileEdges(g, raw.Edges, fail); err != nil {
		return nil, err
	}
	g.Start = raw.Start
	if g.Start == "" {
		g.Start = g.Nodes[0].ID
	}
	if _, ok := g.byID[g.Start]; !ok {
		return nil, fail(top.Line, "start node %q is not declared", g.Start)
	}
	if err := checkNodes(g, fail); err != nil {
		return nil, err
	}
	if err := compileSkipSets(g, &raw.SkipSets); err != nil {
		return nil, fail(raw.SkipSets.Line, "%s", err.Error())
	}
	if err := compileRecords(g, &raw.Records); err != nil {
		return nil, fail(raw.Records.Line, "%s", err.Error())
	}
	if err := checkReachable(g); err != nil {
		return nil, fail(0, "%s", err.Error())
	}
	return g, nil
}

// failFunc builds a GraphConfigError at a YAML line.
type failFunc func(line int, format string, args ...any) error

// compileNodes compiles every node into g, refusing a duplicate id.
func compileNodes(g *Graph, nodes []yaml.Node, reg *Registry, fail failFunc) error {
	for i := range nodes {
		rn := &nodes[i]
		n, err := compileNode(rn, reg)
		if err != nil {
			return fail(rn.Line, "%s", err.Error())
		}
		if _, dup := g.byID[n.ID]; dup {
			return fail(rn.Line, "duplicate node id %q", n.ID)
		}
		n.index = len(g.Nodes)
		g.Nodes = append(g.Nodes, n)
		g.byID[n.ID] = n
	}
	return nil
}

// compileEdges adds every edge to g and indexes it by (from, outcome); an
// edge naming an undeclared node is refused.
func compileEdges(g *Graph, edges []yaml.Node, fail failFunc) error {
	for i := range edges {
		re := &edges[i]
		e, err := compileEdge(re)
		if err != nil {
			return fail(re.Line, "%s", err.Error())
		}
		for _, end := range [][2]string{{"from", e.From}, {"to", e.To}} {
			if _, ok := g.byID[end[1]]; !ok {
				return fail(re.Line, "edge %s names undeclared node %q; declared nodes are: %s", end[0], end[1], strings.Join(g.IDs(), ", "))
			}
		}
		g.Edges = append(g.Edges, e)
		k := [2]string{e.From, e.On}
		if _, seen := g.byEdge[k]; !seen {
			g.byEdge[k] = e.To
		}
	}
	return nil
}

type keyErr struct {
	line int
	msg  string
}

func knownKeys(m *yaml.Node, what string, allowed ...string) *keyErr {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !ok[k.Value] {
			return &keyErr{line: k.Line, msg: fmt.Sprintf("%s: unknown key %q; known keys are: %s", what, k.Value, strings.Join(allowed, ", "))}
		}
	}
	return nil
}

var nodeKeys = []string{"id", "actor", "phase", "stage", "command", "session", "produces", "required", "optional", "skippable", "optIn", "description", "maxAttempts", "terminal", "requiresHandoff", "entry", "exit"}

func compileNode(y *yaml.Node, reg *Registry) (*Node, error) {
	if y.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("node entries must be mappings")
	}
	var rn rawNode
	if err := y.Decode(&rn); err != nil {
		return nil, fmt.Errorf("node: %v", err)
	}
	id := strings.TrimSpace(rn.ID)
	if id == "" {
		return nil, fmt.Errorf("every node needs an id")
	}
	if err := knownKeys(y, fmt.Sprintf("node %q", id), nodeKeys...); err != nil {
		return nil, fmt.Errorf("%s", err.msg)
	}
	n := &Node{ID: id, Actor: rn.Actor, Phase: rn.Phase, Stage: rn.Stage, Command: rn.Command, Session: rn.Session,
		Required: rn.Required, Optional: rn.Optional, Skippable: rn.Skippable || rn.OptIn, OptIn: rn.OptIn,
		Description: strings.Join(strings.Fields(rn.Description), " "), MaxAttempts: 3, Terminal: rn.Terminal,
		RequiresHandoff: rn.RequiresHandoff, Produces: []string{}}
	if n.Actor == "" {
		n.Actor = ActorAgent
	}
	if n.Actor != ActorAgent && n.Actor != ActorHuman && n.Actor != ActorCode {
		return nil, fmt.Errorf("node %q: actor %q is not one of [agent code human]", id, n.Actor)
	}
	if n.Session == "" {
		n.Session = "new"
	}
	if n.Session != "new" && n.Session != "inherit" {
		return nil, fmt.Errorf("node %q: session %q is not one of [inherit new]", id, n.Session)
	}
	switch rn.Produces.Kind {
	case 0:
	case yaml.ScalarNode:
		n.Produces = []string{rn.Produces.Value}
	case yaml.SequenceNode:
		if err := rn.Produces.Decode(&n.Produces); err != nil {
			return nil, fmt.Errorf("node %q: produces: %v", id, err)
		}
	default:
		return nil, fmt.Errorf("node %q: produces must be a name or a list of names", id)
	}
	for _, p := range n.Produces {
		for _, alt := range strings.Split(p, "|") {
			if strings.TrimSpace(alt) == "" {
				return nil, fmt.Errorf("node %q: produces entry %q has an empty alternative; write the accepted names as 'first.md|second.md'", id, p)
			}
		}
	}
	if n.Required && rn.OptIn {
		return nil, fmt.Errorf("node %q is both required and optIn — a mandatory gate cannot be off until somebody asks for it", id)
	}
	if n.Required && rn.Skippable {
		return nil, fmt.Errorf("node %q is both required and skippable — a mandatory gate cannot also be in the skip vocabulary", id)
	}
	if rn.MaxAttempts != nil {
		if *rn.MaxAttempts < 1 {
			return nil, fmt.Errorf("node %q: maxAttempts must be at least 1", id)
		}
		n.MaxAttempts = *rn.MaxAttempts
	}
	var err error
	if n.Entry, err = compileChain(id, "entry", rn.Entry, reg); err != nil {
		return nil, err
	}
	if n.Exit, err = compileChain(id, "exit", rn.Exit, reg); err != nil {
		return nil, err
	}
	return n, nil
}

func compileChain(id, boundary string, items []yaml.Node, reg *Registry) ([]ChainEntry, error) {
	out := make([]ChainEntry, 0, len(items))
	for i := range items {
		it := &items[i]
		var e ChainEntry
		switch it.Kind {
		case yaml.ScalarNode:
			e.Hook = it.Value
		case yaml.MappingNode:
			if err := knownKeys(it, fmt.Sprintf("node %q %s hook entry", id, boundary), "hook", "with"); err != nil {
				return nil, fmt.Errorf("%s", err.msg)
			}
			var m struct {
				Hook string         `yaml:"hook"`
				With map[string]any `yaml:"with"`
			}
			if err := it.Decode(&m); err != nil {
				return nil, fmt.Errorf("node %q: malformed %s hook entry: %v", id, boundary, err)
			}
			e.Hook, e.With = m.Hook, m.With
		default:
			return nil, fmt.Errorf("node %q: malformed %s hook entry — expected a hook name or {hook: name, with: {...}}", id, boundary)
		}
		if e.Hook == "" {
			return nil, fmt.Errorf("node %q: malformed %s hook entry — expected a hook name or {hook: name, with: {...}}", id, boundary)
		}
		spec, ok := reg.Lookup(e.Hook)
		if !ok {
			return nil, fmt.Errorf("node %q: %s references unknown hook %q; registered hooks are: %s", id, boundary, e.Hook, strings.Join(reg.Names(), ", "))
		}
		e.fn, e.ops, e.hostOps, e.runsCommands = spec.Func, spec.Ops, spec.HostOps, spec.RunsCommands
		out = append(out, e)
	}
	return out, nil
}

func compileEdge(y *yaml.Node) (Edge, error) {
	if y.Kind != yaml.MappingNode {
		return Edge{}, fmt.Errorf("edge entries must be mappings")
	}
	var e Edge
	seen := map[string]bool{}
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		key := k.Value
		// YAML 1.1 readers turn an unquoted on: into true; accept that spelling.
		if k.Tag == "!!bool" && (strings.EqualFold(key, "true") || strings.EqualFold(key, "on")) {
			key = "on"
		}
		if v.Kind != yaml.ScalarNode {
			return Edge{}, fmt.Errorf("edge key %q must be a scalar", key)
		}
		switch key {
		case "from":
			e.From = v.Value
		case "to":
			e.To = v.Value
		case "on":
			e.On = v.Value
		default:
			return Edge{}, fmt.Errorf("edge: unknown key %q; known keys are: from, to, on", key)
		}
		seen[key] = true
	}
	for _, k := range []string{"from", "to", "on"} {
		if !seen[k] {
			return Edge{}, fmt.Errorf("edge {from: %s, to: %s, on: %s} is missing %q", e.From, e.To, e.On, k)
		}
	}
	return e, nil
}
