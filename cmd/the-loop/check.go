package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

// checkOptions are the flags of `the-loop check`.
type checkOptions struct {
	service.CheckRequest
	Format string
	FailOn string
	Config string
	DB     string
}

func init() {
	register(&Command{
		Name:    "check",
		Usage:   "check [<id>] [--repo DIR] [--all] [--recompute] [--format table|json] [--fail-on unmet|block] [--db FILE]",
		Summary: "report where work items stand (read-only; the CI and stop-hook verb)",
		Run:     runCheckCmd,
	})
}

func runCheckCmd(ctx context.Context, env *Env, args []string) error {
	fs, cfgPath := flagSet(env, "check", commands["check"].Usage)
	opts := checkOptions{}
	fs.StringVar(&opts.Repo, "repo", ".", "repository root")
	fs.BoolVar(&opts.All, "all", false, "check every work item under the spec directory")
	fs.BoolVar(&opts.Recompute, "recompute", false, "derive every verdict from the artifacts and verified decisions alone")
	fs.StringVar(&opts.Format, "format", "table", "output format: table or json")
	fs.StringVar(&opts.FailOn, "fail-on", "unmet", "exit 1 when a work item is unmet, or only when a node blocks (block)")
	fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	opts.Config = *cfgPath
	switch len(pos) {
	case 0:
	case 1:
		opts.WorkItem = pos[0]
	default:
		return usageErrorf("check takes at most one work item id; got %s", strings.Join(pos, " "))
	}
	if err := oneOf("format", opts.Format, "table", "json"); err != nil {
		return err
	}
	if err := oneOf("fail-on", opts.FailOn, "unmet", "block"); err != nil {
		return err
	}
	if opts.WorkItem == "" && !opts.All {
		return usageErrorf("give a work item id, or --all")
	}
	return checkRun(ctx, env, opts)
}

func checkRun(ctx context.Context, env *Env, opts checkOptions) error {
	svc, err := newService(env, opts.Config, opts.DB)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	defer svc.Close()
	res, err := svc.Check(ctx, opts.CheckRequest)
	if err != nil {
		if errors.Is(err, service.ErrRepoUnreadable) {
			return &usageError{msg: err.Error()}
		}
		return &usageError{msg: err.Error()}
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(env.Stderr, w)
	}
	failing := 0
	for _, r := range res.Reports {
		if r.Fails(res.Graphs[r.WorkItem], opts.FailOn) {
			failing++
		}
	}
	if opts.Format == "json" {
		var v any = res.Reports
		if !opts.All {
			v = res.Reports[0]
		} else if res.Reports == nil {
			v = []runtime.Report{}
		}
		if err := writeJSON(env.Stdout, v); err != nil {
			return err
		}
	} else {
		renderCheckTable(env.Stdout, res, opts)
	}
	if failing > 0 {
		return exitWith(exitUnmet, "")
	}
	return nil
}

// renderCheckTable prints the people's format: one block per item and, with
// --all, a summary line.
func renderCheckTable(w io.Writer, res service.CheckResult, opts checkOptions) {
	satisfied := 0
	for _, r := range res.Reports {
		g := res.Graphs[r.WorkItem]
		fails := r.Fails(g, opts.FailOn)
		if !fails {
			satisfied++
		}
		head := "ok"
		if !r.OK {
			head = "UNMET"
		}
		fmt.Fprintf(w, "%s: %s (at %s)\n", r.WorkItem, head, r.CurrentNode)
		reached, ahead := r.Reached(g)
		var unmet []runtime.NodeReport
		for _, nr := range reached {
			if !runtime.Satisfied(nr.Status) {
				unmet = append(unmet, nr)
			}
		}
		if len(unmet) > 0 && (!opts.All || !r.OK) {
			if opts.All {
				unmet = unmet[:1]
			}
			for _, nr := range unmet {
				fmt.Fprintf(w, "  %-6s %s\n", strings.ToUpper(nr.Status), nr.Node)
				for _, m := range nr.Messages {
					fmt.Fprintf(w, "         · %s\n", m)
				}
			}
		}
		if !opts.All {
			n := 0
			for _, nr := range ahead {
				if !runtime.Satisfied(nr.Status) {
					n++
				}
			}
			if n > 0 {
				fmt.Fprintf(w, "  ····   %d node(s) not reached yet\n", n)
			}
		}
	}
	if opts.All {
		fmt.Fprintf(w, "\n%d/%d work items satisfied\n", satisfied, len(res.Reports))
	}
}
