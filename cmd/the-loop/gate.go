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

func init() {
	register(&Command{
		Name:    "gate",
		Usage:   "gate [--harness claude|cursor] [--repo DIR] [--work-item ID] [--max-attempts N]",
		Summary: "stop-hook gate for Claude Code and Cursor: blocks a stop only on a blocked node",
		Run:     runGate,
	})
}

// hookInput is the part of a harness stop-hook payload the gate reads.
type hookInput struct {
	Cwd            string   `json:"cwd"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

// runGate never blocks a stop because of its own failure: a bad flag, a
// config it cannot load, a repository or store it cannot read — each is a
// warning on stderr and the stop is allowed (exit 0; for cursor, "{}").
// Only a blocked node, evaluated, blocks: blockStop is the one error that
// passes, so no failure can reach the exit-code map as a block.
func runGate(ctx context.Context, f *Factory, args []string) error {
	harness := "claude"
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--harness="); ok {
			harness = v
		} else if a == "--harness" && i+1 < len(args) {
			harness = args[i+1]
		}
	}
	err := gateRun(ctx, f, args)
	if err == nil || errors.Is(err, errStopBlocked) || errors.Is(err, flag.ErrHelp) {
		return err
	}
	fmt.Fprintf(f.Stderr, "the-loop gate: warning: the gate could not run (%v); the stop is allowed\n", err)
	if harness == "cursor" {
		return writeJSON(f.Stdout, map[string]string{})
	}
	return nil
}

func gateRun(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "gate", commands["gate"].Usage)
	harness := fs.String("harness", "claude", "claude (exit 2 blocks the stop) or cursor (followup_message JSON)")
	repo := fs.String("repo", "", "repository root (default: the hook payload's cwd, else the working directory)")
	var items multiFlag
	fs.Var(&items, "work-item", "work item to gate (repeatable; default $THE_LOOP_WORK_ITEM, else every active item)")
	maxAttempts := fs.Int("max-attempts", 3, "consecutive blocked stops per work item before the gate lets go")
	db := fs.String("db", "", "state database")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := oneOf("harness", *harness, "claude", "cursor"); err != nil {
		return err
	}
	var in hookInput
	if f.Stdin != nil && !isTerminal(f.Stdin) {
		data, _ := io.ReadAll(io.LimitReader(f.Stdin, 1<<20))
		_ = json.Unmarshal(data, &in)
	}
	dir := *repo
	if dir == "" {
		dir = in.Cwd
	}
	if dir == "" && len(in.WorkspaceRoots) > 0 {
		dir = in.WorkspaceRoots[0]
	}
	if dir == "" {
		dir = f.Cwd
	}
	if len(items) == 0 {
		if v := strings.TrimSpace(f.Getenv("THE_LOOP_WORK_ITEM")); v != "" {
			items = multiFlag{v}
		}
	}
	svc, err := f.Service(ServiceOptions{DB: *db})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.Gate(ctx, service.GateRequest{Repo: dir, WorkItems: items, MaxAttempts: *maxAttempts})
	if err != nil {
		return err
	}
	for _, id := range res.GaveUp {
		fmt.Fprintf(f.Stderr, "the-loop gate: %s is still blocked; giving up after %d attempts so the session can stop\n", id, *maxAttempts)
	}
	if *harness == "cursor" {
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
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
