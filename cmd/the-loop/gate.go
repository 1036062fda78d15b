package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/the-loop/the-loop/service"
)

const gateUsage = "gate [--harness claude|cursor] [--repo DIR] [--work-item ID] [--max-attempts N]"

// gateOptions are the flags of `the-loop gate`, the stop check.
type gateOptions struct {
	service.GateRequest
	Harness string
	DB      string
}

// hookInput is the part of a harness stop-hook payload the gate reads.
type hookInput struct {
	Cwd            string   `json:"cwd"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

func gateCmd() *Command {
	return &Command{Name: "gate", Usage: gateUsage,
		Summary: "stop check for Claude Code and Cursor: blocks a stop only on a blocked node",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &gateOptions{Harness: harnessArg(args)}
			err := parseGate(f, opts, args)
			if err == nil {
				err = runGate(ctx, f, opts)
			}
			return allowStop(f, opts.Harness, err)
		}}
}

// allowStop is the stop check's promise: it never blocks a stop because of
// its own failure. A bad flag, a config it cannot load, a repository or
// store it cannot read — each is a warning on stderr and the stop is
// allowed (exit 0; for cursor, "{}"). Only a blocked node, evaluated,
// blocks: blockStop is the one error that passes, so no failure reaches
// the exit-code map as a block.
func allowStop(f *Factory, harness string, err error) error {
	if err == nil || errors.Is(err, errStopBlocked) || errors.Is(err, flag.ErrHelp) {
		return err
	}
	fmt.Fprintf(f.Stderr, "the-loop gate: warning: the gate could not run (%v); the stop is allowed\n", err)
	if harness == "cursor" {
		return writeJSON(f.Stdout, map[string]string{})
	}
	return nil
}

// harnessArg finds --harness before the flags are parsed, so that even a
// flag error answers in the harness's protocol.
func harnessArg(args []string) string {
	harness := "claude"
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--harness="); ok {
			harness = v
		} else if a == "--harness" && i+1 < len(args) {
			harness = args[i+1]
		}
	}
	return harness
}

func parseGate(f *Factory, opts *gateOptions, args []string) error {
	fs := f.flagSet("gate", gateUsage)
	fs.StringVar(&opts.Harness, "harness", "claude", "claude (exit 2 blocks the stop) or cursor (followup_message JSON)")
	fs.StringVar(&opts.Repo, "repo", "", "repository root (default: the hook payload's cwd, else the working directory)")
	fs.Var(stringsFlag{dst: &opts.WorkItems}, "work-item", "work item to gate (repeatable; default $THE_LOOP_WORK_ITEM, else every active item)")
	fs.IntVar(&opts.MaxAttempts, "max-attempts", 3, "consecutive blocked stops per work item before the gate lets go")
	fs.StringVar(&opts.DB, "db", "", "state database")
	if _, err := f.parseFlags(fs, args); err != nil {
		return err
	}
	if err := oneOf("harness", opts.Harness, "claude", "cursor"); err != nil {
		return err
	}
	var in hookInput
	if f.Stdin != nil && !isTerminal(f.Stdin) {
		data, _ := io.ReadAll(io.LimitReader(f.Stdin, 1<<20))
		_ = json.Unmarshal(data, &in)
	}
	for _, dir := range append([]string{opts.Repo, in.Cwd}, append(in.WorkspaceRoots, f.Cwd)...) {
		if opts.Repo = f.path(dir); dir != "" {
			break
		}
	}
	if len(opts.WorkItems) == 0 {
		if v := strings.TrimSpace(f.Getenv("THE_LOOP_WORK_ITEM")); v != "" {
			opts.WorkItems = []string{v}
		}
	}
	return nil
}

func runGate(ctx context.Context, f *Factory, opts *gateOptions) error {
	res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).Gate, opts.GateRequest)
	if err != nil {
		return err
	}
	f.printWarnings(res.Warnings)
	for _, id := range res.GaveUp {
		fmt.Fprintf(f.Stderr, "the-loop gate: %s is still blocked; giving up after %d attempts so the session can stop\n", id, opts.MaxAttempts)
	}
	if opts.Harness == "cursor" {
		out := map[string]string{}
		if res.Block {
			out["followup_message"] = res.Summary()
		}
		return writeJSON(f.Stdout, out)
	}
	if res.Block {
		return blockStop(res.Summary())
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	file, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
