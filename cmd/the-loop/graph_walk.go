package main

import (
	"context"
	"fmt"
	"io"

	"github.com/the-loop/the-loop/service"
)

func graphStatusCmd() *Command {
	const usage = "graph status <id> [--repo DIR] [--format table|json]"
	return &Command{Name: "status", Usage: usage, Summary: "where one item stands, as the graph context block an agent's prompt carries",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &itemOptions{}
			fs := f.flagSet("graph status", usage)
			opts.bind(fs, "table")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runGraphStatus(ctx, f, opts)
		}}
}

func runGraphStatus(ctx context.Context, f *Factory, opts *itemOptions) error {
	var gs service.GraphStatus
	var err error
	if socket, capability, ok := f.sessionEndpoint(); ok {
		gs.Warnings, err = forwardTool(ctx, socket, capability, "graph_status", map[string]any{"workItem": opts.WorkItem}, &gs)
	} else {
		gs, err = call(ctx, f, opts.store(), (*service.Service).Status, opts.ItemRequest)
	}
	if err != nil {
		return err
	}
	return f.emit(opts.Format, gs.Warnings, gs, func(w io.Writer) {
		fmt.Fprintln(w, gs.GraphContext)
		fmt.Fprintln(w, "  sessions: "+gs.Sessions)
	})
}

// graphStartOptions are the flags of `the-loop graph start`.
type graphStartOptions struct {
	itemOptions
	Loop, Ref string
}

func graphStartCmd() *Command {
	const usage = "graph start <id> [--loop NAME] [--ref REF] [--repo DIR]"
	return &Command{Name: "start", Usage: usage, Summary: "begin a walk at the loop's start node",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphStartOptions{}
			fs := f.flagSet("graph start", usage)
			opts.bind(fs, "table")
			fs.StringVar(&opts.Loop, "loop", "", "shipped loop (default pdlc-work-item-loop)")
			fs.StringVar(&opts.Ref, "ref", "", "ticket ref, e.g. github:owner/repo#12 (default derived from the repository config)")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runGraphStart(ctx, f, opts)
		}}
}

func runGraphStart(ctx context.Context, f *Factory, opts *graphStartOptions) error {
	res, err := call(ctx, f, opts.store(), (*service.Service).Start, service.StartRequest{ItemRequest: opts.ItemRequest, Loop: opts.Loop, Ref: opts.Ref})
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		if res.Started {
			fmt.Fprintf(w, "%s: started %s at %s\n", res.WorkItem, res.Loop, res.Node)
		} else {
			fmt.Fprintf(w, "%s: already started, at %s\n", res.WorkItem, res.Node)
		}
		for _, m := range res.Messages {
			fmt.Fprintf(w, "  · %s\n", m)
		}
	})
}

func graphAdvanceCmd() *Command {
	const usage = "graph advance <id> [--repo DIR] [--format table|json]"
	return &Command{Name: "advance", Usage: usage, Summary: "evaluate the current node (with the ticket's comments) and route",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &itemOptions{}
			fs := f.flagSet("graph advance", usage)
			opts.bind(fs, "table")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runGraphAdvance(ctx, f, opts)
		}}
}

func runGraphAdvance(ctx context.Context, f *Factory, opts *itemOptions) error {
	rep, err := call(ctx, f, opts.store(), (*service.Service).Advance, opts.ItemRequest)
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, rep.Warnings, rep, func(w io.Writer) {
		fmt.Fprintf(w, "%s: %s → %s\n", opts.WorkItem, rep.Node, rep.Status)
		for _, m := range rep.Messages {
			fmt.Fprintf(w, "  · %s\n", m)
		}
	})
	if err != nil {
		return err
	}
	return walkVerdict(rep.Status)
}

// graphCompleteOptions are the flags of `the-loop graph complete`.
type graphCompleteOptions struct {
	itemOptions
	Node, Actor string
	PR          int
	PRRepo      string
}

func graphCompleteCmd() *Command {
	const usage = "graph complete <id> [--node N] [--pr N [--pr-repo OWNER/REPO]] [--actor WHO] [--repo DIR] [--format json|table]"
	return &Command{Name: "complete", Usage: usage, Summary: "an agent's completion claim: runs the exit chain, advances on pass",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphCompleteOptions{}
			fs := f.flagSet("graph complete", usage)
			opts.bind(fs, "json")
			fs.StringVar(&opts.Node, "node", "", "the node claimed done (default the current node)")
			fs.StringVar(&opts.Actor, "actor", "", "who claims it (default cli)")
			fs.IntVar(&opts.PR, "pr", 0, "claim the node of this pull request's loop (its number) instead of the work item's")
			fs.StringVar(&opts.PRRepo, "pr-repo", "", "OWNER/REPO of that pull request (default: the origin repository)")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			if opts.PRRepo != "" && opts.PR == 0 {
				return usageErrorf("--pr-repo names the repository of --pr: give --pr N too")
			}
			if opts.PR < 0 {
				return usageErrorf("--pr must be the pull request's number, got %d", opts.PR)
			}
			return runGraphComplete(ctx, f, opts)
		}}
}

func runGraphComplete(ctx context.Context, f *Factory, opts *graphCompleteOptions) error {
	var claim service.CompleteResult
	var err error
	if socket, capability, ok := f.sessionEndpoint(); ok {
		// Inside a session: the same claim its server makes, in the poller.
		args := map[string]any{"workItem": opts.WorkItem}
		if opts.Node != "" {
			args["node"] = opts.Node
		}
		if opts.PR > 0 {
			args["pr"] = opts.PR
		}
		if opts.PRRepo != "" {
			args["prRepo"] = opts.PRRepo
		}
		claim.Warnings, err = forwardTool(ctx, socket, capability, "graph_complete", args, &claim.ClaimAnswer)
	} else {
		claim, err = call(ctx, f, opts.store(), (*service.Service).Complete, service.CompleteRequest{ItemRequest: opts.ItemRequest, Node: opts.Node,
			PR: opts.PR, PRRepo: opts.PRRepo, Actor: opts.Actor})
	}
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, claim.Warnings, claim, func(w io.Writer) {
		fmt.Fprintln(w, service.ClaimText(claim.ClaimAnswer, opts.WorkItem))
	})
	if err != nil {
		return err
	}
	return walkVerdict(claim.Status)
}
