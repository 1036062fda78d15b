package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/service"
)

func graphCmd() *Command {
	return &Command{Name: "graph", Noun: "action", Usage: "graph <action> ...",
		Summary: "inspect and walk the process graph (skip and force are operator acts)",
		Sub: []*Command{graphShowCmd(), graphStatusCmd(), graphStartCmd(), graphAdvanceCmd(), graphCompleteCmd(),
			graphReposCmd(), graphSkipCmd(), graphForceCmd(), graphEventsCmd()}}
}

// graphShowOptions are the flags of `the-loop graph show`.
type graphShowOptions struct {
	service.GraphShowRequest
	Format string
}

func graphShowCmd() *Command {
	const usage = "graph show [--loop NAME] [--format table|json|mermaid]"
	return &Command{Name: "show", Usage: usage, Summary: "a shipped loop's nodes and edges",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphShowOptions{}
			fs := f.flagSet("graph show", usage)
			fs.StringVar(&opts.Loop, "loop", "", "shipped loop (default pdlc-work-item-loop)")
			fs.StringVar(&opts.Format, "format", "table", "table, json or mermaid")
			if _, err := f.parseFlags(fs, args); err != nil {
				return err
			}
			if err := oneOf("format", opts.Format, "table", "text", "json", "mermaid"); err != nil {
				return err
			}
			return runGraphShow(ctx, f, opts)
		}}
}

func runGraphShow(ctx context.Context, f *Factory, opts *graphShowOptions) error {
	view, err := call(ctx, f, ServiceOptions{}, (*service.Service).GraphShow, opts.GraphShowRequest)
	if err != nil {
		return err
	}
	return f.emit(opts.Format, view.Warnings, view, func(w io.Writer) {
		if opts.Format == "mermaid" {
			io.WriteString(w, service.Mermaid(view.Graph))
			return
		}
		io.WriteString(w, service.GraphText(view.Graph))
	})
}

// graphEventsOptions are the flags of `the-loop graph events`.
type graphEventsOptions struct{ itemOptions }

func graphEventsCmd() *Command {
	const usage = "graph events <id> [--repo DIR] [--format table|json]"
	return &Command{Name: "events", Usage: usage, Summary: "the append-only event log",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphEventsOptions{}
			fs := f.flagSet("graph events", usage)
			opts.bind(fs, "table")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runGraphEvents(ctx, f, opts)
		}}
}

func runGraphEvents(ctx context.Context, f *Factory, opts *graphEventsOptions) error {
	res, err := call(ctx, f, opts.store(), (*service.Service).Events, opts.ItemRequest)
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res.Events, func(w io.Writer) {
		for _, e := range res.Events {
			line := fmt.Sprintf("%4d  %s  %-24s %s", e.Seq, e.At, e.Name, e.Node)
			if len(e.Data) > 0 {
				var parts []string
				for _, k := range slices.Sorted(maps.Keys(e.Data)) {
					parts = append(parts, fmt.Sprintf("%s=%v", k, e.Data[k]))
				}
				line += "  " + strings.Join(parts, " ")
			}
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	})
}
