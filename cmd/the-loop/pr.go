package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/service"
)

func prCmd() *Command {
	return &Command{Name: "pr", Noun: "subcommand", Usage: "pr <subcommand> [flags]",
		Summary: "open or adopt a work item's pull request",
		Sub:     []*Command{prCreateCmd()}}
}

const prCreateUsage = "pr create --work-item ID [--repository OWNER/REPO] [--base BRANCH] [--draft] [--actor WHO] [--repo DIR] [--db FILE] [--format table|json]"

// prCreateOptions are the flags of `the-loop pr create`.
type prCreateOptions struct {
	service.PRCreateRequest
	DB, Format string
}

func prCreateCmd() *Command {
	return &Command{Name: "create", Usage: prCreateUsage, Summary: "open the item's pull request from its branch (or adopt it), link it and start its loop",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &prCreateOptions{}
			fs := f.flagSet("pr create", prCreateUsage)
			fs.StringVar(&opts.WorkItem, "work-item", "", "the work item, e.g. issue-12 (required)")
			fs.StringVar(&opts.Repository, "repository", "", "OWNER/REPO to open it in (default: the origin repository, ticketing.github)")
			fs.StringVar(&opts.Base, "base", "", "the branch it merges into (default "+service.DefaultBase+")")
			fs.BoolVar(&opts.Draft, "draft", false, "open it as a draft")
			fs.StringVar(&opts.Actor, "actor", "", "who opens it (default (shell))")
			fs.StringVar(&opts.Repo, "repo", ".", "the checkout the work item's spec folder is in")
			fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
			fs.StringVar(&opts.Format, "format", "table", "table or json")
			rest, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageErrorf("pr create takes no positional arguments (got %q); name the item with --work-item", strings.Join(rest, " "))
			}
			if opts.WorkItem == "" {
				return usageErrorf("--work-item is required: name the work item, e.g. --work-item issue-12")
			}
			if opts.Actor == "" {
				opts.Actor = "(shell)"
			}
			opts.Repo = f.path(opts.Repo)
			if err := oneOf("format", opts.Format, "table", "json"); err != nil {
				return err
			}
			return runPRCreate(ctx, f, opts)
		}}
}

func runPRCreate(ctx context.Context, f *Factory, opts *prCreateOptions) error {
	res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).PRCreate, opts.PRCreateRequest)
	if errors.Is(err, service.ErrInvalidRequest) {
		f.printWarnings(res.Warnings)
		return refused(err)
	}
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		verb := "adopted"
		if res.Created {
			verb = "opened"
		}
		l := res.PullRequest
		fmt.Fprintf(w, "%s %s for %s: %s\n", verb, l.Key(), res.WorkItem, l.URL)
		fmt.Fprintf(w, "  from %s into %s; for: %s\n", l.Head, l.Base, strings.Join(res.Role, ", "))
		if l.InnerLoop != "" {
			fmt.Fprintf(w, "  its pdlc-pr-loop stands at %s (state in %s/); claim its nodes with `the-loop graph complete %s --pr %d%s`\n",
				res.InnerLoopNode, l.InnerLoop, res.WorkItem, l.Number, prRepoFlag(l.Repo, res))
		}
	})
}

// prRepoFlag is the --pr-repo part of a claim, for a pull request outside
// the origin repository.
func prRepoFlag(repo string, res service.PRCreateResult) string {
	if strings.Count(res.PullRequest.InnerLoop, "/") > 1 {
		return " --pr-repo " + repo
	}
	return ""
}
