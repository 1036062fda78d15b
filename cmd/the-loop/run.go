package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/the-loop/the-loop/service"
)

// runOptions are the flags of `the-loop run`.
type runOptions struct {
	itemOptions
}

func runCmd() *Command {
	const usage = "run <id> [--repo DIR] [--format table|json]"
	return &Command{Name: "run", Usage: usage,
		Summary: "drive one work item in the foreground without the poller: a session for each agent node, until a human gate or the end",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &runOptions{}
			fs := f.flagSet("run", usage)
			opts.bind(fs, "table")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runRun(ctx, f, opts)
		}}
}

func runRun(ctx context.Context, f *Factory, opts *runOptions) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	svc, err := f.Service(ServiceOptions{DB: opts.DB, Sessions: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	progress := func(st service.RunStep) {
		if opts.Format == "json" {
			return
		}
		line := fmt.Sprintf("%s: %s", st.Node, st.Action)
		if st.Session != "" {
			line += " " + st.Session
		}
		if st.Detail != "" {
			line += " — " + st.Detail
		}
		fmt.Fprintln(f.Stdout, line)
	}
	res, err := svc.Run(ctx, service.RunRequest{ItemRequest: opts.ItemRequest}, progress)
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		if res.Node == "" {
			fmt.Fprintf(w, "%s is not armed; it waits for %s\n", res.WorkItem, res.Waits)
			return
		}
		if res.Finished {
			fmt.Fprintf(w, "%s is finished (at %s).\n", res.WorkItem, res.Node)
			return
		}
		fmt.Fprintf(w, "%s stopped at %s; it waits for %s", res.WorkItem, res.Node, res.Waits)
		if res.Where != "" {
			fmt.Fprintf(w, " — on %s", res.Where)
		}
		fmt.Fprintln(w)
	})
	if err == nil && res.Node == "escalated" {
		return unmet("")
	}
	return err
}
