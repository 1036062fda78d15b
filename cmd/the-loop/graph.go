package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/service"
)

func init() {
	register(&Command{
		Name:    "graph",
		Usage:   "graph <show|status|start|advance|complete|skip|force|events> ...",
		Summary: "inspect and walk the process graph (skip and force are operator acts)",
		Run:     runGraph,
	})
}

var graphActions = map[string]func(ctx context.Context, f *Factory, args []string) error{
	"show":     graphShow,
	"status":   graphStatus,
	"start":    graphStart,
	"advance":  graphAdvance,
	"complete": graphComplete,
	"skip":     graphSkip,
	"force":    graphForce,
	"events":   graphEvents,
}

func runGraph(ctx context.Context, f *Factory, args []string) error {
	if len(args) == 0 {
		names := make([]string, 0, len(graphActions))
		for n := range graphActions {
			names = append(names, n)
		}
		sort.Strings(names)
		return usageErrorf("graph needs an action: %s", strings.Join(names, ", "))
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		names := make([]string, 0, len(graphActions))
		for n := range graphActions {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(f.Stderr, "usage: the-loop graph <%s> ...\n\nRun 'the-loop graph <action> -h' for an action's flags.\n", strings.Join(names, "|"))
		return nil
	}
	act, ok := graphActions[args[0]]
	if !ok {
		return usageErrorf("unknown graph action %q", args[0])
	}
	return act(ctx, f, args[1:])
}

func graphShow(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "graph show", "graph show [--loop NAME] [--format table|json|mermaid]")
	loop := fs.String("loop", "", "shipped loop (default pdlc-work-item-loop)")
	format := fs.String("format", "table", "table, json or mermaid")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := oneOf("format", *format, "table", "text", "json", "mermaid"); err != nil {
		return err
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	view, err := svc.GraphShow(ctx, service.GraphShowRequest{Loop: *loop})
	if err != nil {
		return err
	}
	g := view.Graph
	switch *format {
	case "json":
		return writeJSON(f.Stdout, view)
	case "mermaid":
		_, err := io.WriteString(f.Stdout, service.Mermaid(g))
		return err
	}
	_, err = io.WriteString(f.Stdout, service.GraphText(g))
	return err
}

// openItem parses the common flags and one positional work item id.
func openItem(f *Factory, name, usage string, args []string, bind func(fs *flagSetT)) (*service.Service, service.ItemRequest, string, error) {
	return openItemFormat(f, name, usage, "table", args, bind)
}

// openItemFormat is openItem with the default of --format.
func openItemFormat(f *Factory, name, usage, defaultFormat string, args []string, bind func(fs *flagSetT)) (*service.Service, service.ItemRequest, string, error) {
	fs := flagSet(f, name, usage)
	repo := fs.String("repo", ".", "repository root")
	db := fs.String("db", "", "state database (default $THE_LOOP_DB)")
	format := fs.String("format", defaultFormat, "table or json")
	if bind != nil {
		bind(fs)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, service.ItemRequest{}, "", err
	}
	if len(pos) != 1 {
		return nil, service.ItemRequest{}, "", usageErrorf("usage: the-loop %s", usage)
	}
	if err := oneOf("format", *format, "table", "json"); err != nil {
		return nil, service.ItemRequest{}, "", err
	}
	svc, err := f.Service(ServiceOptions{DB: *db})
	if err != nil {
		return nil, service.ItemRequest{}, "", err
	}
	// Walk verbs read the ticket (a gate's comments, a handoff record) and
	// post audit comments when an integration is configured.
	return svc, service.ItemRequest{Repo: *repo, WorkItem: pos[0]}, *format, nil
}

func printWarnings(f *Factory, warns []string) {
	for _, w := range warns {
		fmt.Fprintln(f.Stderr, w)
	}
}

func graphStatus(ctx context.Context, f *Factory, args []string) error {
	svc, req, format, err := openItem(f, "graph status", "graph status <id> [--repo DIR] [--format table|json]", args, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	gs, err := svc.Status(ctx, req)
	if err != nil {
		return err
	}
	printWarnings(f, gs.Warnings)
	if format == "json" {
		return writeJSON(f.Stdout, gs)
	}
	fmt.Fprintln(f.Stdout, gs.GraphContext)
	return nil
}

func graphStart(ctx context.Context, f *Factory, args []string) error {
	var loop, ref *string
	svc, req, format, err := openItem(f, "graph start", "graph start <id> [--loop NAME] [--ref REF] [--repo DIR]", args, func(fs *flagSetT) {
		loop = fs.String("loop", "", "shipped loop (default pdlc-work-item-loop)")
		ref = fs.String("ref", "", "ticket ref, e.g. github:owner/repo#12 (default derived from the harness config)")
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.Start(ctx, service.StartRequest{ItemRequest: req, Loop: *loop, Ref: *ref})
	if err != nil {
		return err
	}
	printWarnings(f, res.Warnings)
	if format == "json" {
		return writeJSON(f.Stdout, res)
	}
	if res.Started {
		fmt.Fprintf(f.Stdout, "%s: started %s at %s\n", res.WorkItem, res.Loop, res.Node)
	} else {
		fmt.Fprintf(f.Stdout, "%s: already started, at %s\n", res.WorkItem, res.Node)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(f.Stdout, "  · %s\n", m)
	}
	return nil
}

func graphAdvance(ctx context.Context, f *Factory, args []string) error {
	svc, req, format, err := openItem(f, "graph advance", "graph advance <id> [--repo DIR] [--format table|json]", args, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	rep, err := svc.Advance(ctx, req)
	if err != nil {
		return err
	}
	printWarnings(f, rep.Warnings)
	if format == "json" {
		if err := writeJSON(f.Stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(f.Stdout, "%s: %s → %s\n", req.WorkItem, rep.Node, rep.Status)
		for _, m := range rep.Messages {
			fmt.Fprintf(f.Stdout, "  · %s\n", m)
		}
	}
	return walkVerdict(rep.Status)
}

func graphComplete(ctx context.Context, f *Factory, args []string) error {
	var node, actor *string
	svc, req, format, err := openItemFormat(f, "graph complete", "graph complete <id> [--node N] [--actor WHO] [--repo DIR] [--format json|table]", "json", args, func(fs *flagSetT) {
		node = fs.String("node", "", "the node claimed done (default the current node)")
		actor = fs.String("actor", "", "who claims it (default cli)")
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	envl, err := svc.Complete(ctx, service.CompleteRequest{ItemRequest: req, Node: *node, Actor: *actor})
	if err != nil {
		return err
	}
	printWarnings(f, envl.Warnings)
	if format == "table" {
		fmt.Fprintln(f.Stdout, service.ClaimText(envl.Envelope, req.WorkItem))
	} else if err := writeJSON(f.Stdout, envl); err != nil {
		return err
	}
	return walkVerdict(envl.Status)
}

func graphSkip(ctx context.Context, f *Factory, args []string) error {
	var nodes multiFlag
	var reason, actor *string
	svc, req, format, err := openItem(f, "graph skip", "graph skip <id> --node N [--node N...] --reason R [--actor WHO] [--repo DIR]", args, func(fs *flagSetT) {
		fs.Var(&nodes, "node", "a skippable node or skip set (repeatable)")
		reason = fs.String("reason", "", "why this work item does not walk the phase (required)")
		actor = fs.String("actor", "", "who declares it (default (shell))")
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.Skip(ctx, service.SkipRequest{ItemRequest: req, Nodes: nodes, Reason: *reason, Actor: *actor})
	if err != nil {
		if errors.Is(err, service.ErrInvalidRequest) {
			return refused(err)
		}
		return err
	}
	printWarnings(f, res.Warnings)
	if format == "json" {
		if err := writeJSON(f.Stdout, res); err != nil {
			return err
		}
	} else {
		for _, d := range res.Declared {
			fmt.Fprintf(f.Stdout, "declared: %s will be skipped\n", d)
		}
		for _, r := range res.Rejected {
			fmt.Fprintf(f.Stdout, "rejected: %s — %s\n", r.Token, r.Why)
		}
		for _, w := range res.SkipResult.Warnings {
			fmt.Fprintf(f.Stdout, "  WARNING: %s\n", w)
		}
		if len(res.Declared) > 0 {
			fmt.Fprintln(f.Stdout, "  note: these are declarations, not verdicts — `the-loop check` reports each node as skipped by declaration, and the never-skippable gates still run.")
		}
	}
	if len(res.Declared) == 0 {
		return unmet("")
	}
	return nil
}

func graphForce(ctx context.Context, f *Factory, args []string) error {
	var to, reason, actor *string
	svc, req, format, err := openItem(f, "graph force", "graph force <id> --to NODE --reason R [--actor WHO] [--repo DIR]", args, func(fs *flagSetT) {
		to = fs.String("to", "", "the node to move the pointer to (required)")
		reason = fs.String("reason", "", "why you are bypassing the gate (required)")
		actor = fs.String("actor", "", "who forces it (default (shell))")
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	if *to == "" {
		return usageErrorf("--to is required: name the node to move the pointer to")
	}
	res, err := svc.Force(ctx, service.ForceRequest{ItemRequest: req, To: *to, Reason: *reason, Actor: *actor})
	if errors.Is(err, service.ErrInvalidRequest) {
		return refused(err)
	}
	if err != nil {
		return err
	}
	printWarnings(f, res.Warnings)
	if format == "json" {
		return writeJSON(f.Stdout, res)
	}
	fmt.Fprintf(f.Stdout, "forced %s: %s → %s\n  reason: %s\n", res.WorkItem, res.FromNode, res.ToNode, res.Reason)
	for _, w := range res.ForceResult.Warnings {
		fmt.Fprintf(f.Stdout, "  WARNING: %s\n", w)
	}
	fmt.Fprintln(f.Stdout, "  note: this moved the pointer only — the bypassed gate keeps its real verdict, so `the-loop check --recompute` will still report it.")
	return nil
}

func graphEvents(ctx context.Context, f *Factory, args []string) error {
	svc, req, format, err := openItem(f, "graph events", "graph events <id> [--repo DIR] [--format table|json]", args, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.Events(ctx, req)
	if err != nil {
		return err
	}
	printWarnings(f, res.Warnings)
	if format == "json" {
		return writeJSON(f.Stdout, res.Events)
	}
	for _, e := range res.Events {
		line := fmt.Sprintf("%4d  %s  %-24s %s", e.Seq, e.At, e.Name, e.Node)
		if len(e.Data) > 0 {
			keys := make([]string, 0, len(e.Data))
			for k := range e.Data {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s=%v", k, e.Data[k]))
			}
			line += "  " + strings.Join(parts, " ")
		}
		fmt.Fprintln(f.Stdout, strings.TrimRight(line, " "))
	}
	return nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// flagSetT is the flag set type verbs bind extra flags on.
type flagSetT = flag.FlagSet
