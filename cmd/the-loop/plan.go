package main

import (
	"context"
	"io"
	"strings"

	"github.com/the-loop/the-loop/service"
)

const planUsage = "plan <item> [--repo DIR] [--format table|json|mermaid] [--db FILE]"

// planOptions are the flags of `the-loop plan`.
type planOptions struct {
	service.PlanRequest
	Format string
	DB     string
}

func planCmd() *Command {
	return &Command{Name: "plan", Usage: planUsage,
		Summary: "the dependency graph under a parent item or around one item: each ticket, its loop, where it stands and what blocks it (reads the trackers; writes nothing)",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &planOptions{}
			fs := f.flagSet("plan", planUsage)
			fs.StringVar(&opts.Repo, "repo", ".", "repository root (its work items and ticket configuration)")
			fs.StringVar(&opts.Format, "format", "table", "output: table, json, or mermaid (a flowchart)")
			fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(pos) != 1 {
				return usageErrorf("plan takes one item: a ticket reference (github:OWNER/REPO#12, jira:PROJ-12, #12) or a work item id (issue-12); got %q", strings.Join(pos, " "))
			}
			if err := oneOf("format", opts.Format, "table", "json", "mermaid"); err != nil {
				return err
			}
			opts.Item, opts.Repo = pos[0], f.path(opts.Repo)
			return runPlan(ctx, f, opts)
		},
	}
}

// runPlan reads the plan and prints it; a plan with cycles or held items is
// still a plan read (exit 0).
func runPlan(ctx context.Context, f *Factory, opts *planOptions) error {
	res, err := call(ctx, f, ServiceOptions{DB: opts.DB, Trees: true}, (*service.Service).Plan, opts.PlanRequest)
	if err != nil {
		f.printWarnings(res.Warnings)
		return err
	}
	if opts.Format == "mermaid" {
		f.printWarnings(res.Warnings)
		_, err := io.WriteString(f.Stdout, res.Plan.Mermaid())
		return err
	}
	var werr error
	err = f.emit(opts.Format, res.Warnings, res, func(w io.Writer) { werr = res.Plan.WriteTable(w) })
	if err != nil {
		return err
	}
	return werr
}
