package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/service"
)

func criticCmd() *Command {
	return &Command{Name: "critic", Noun: "subcommand", Usage: "critic <subcommand> [flags]",
		Summary: "list the configured critics; run one critic round (it adds work, it never approves)",
		Sub:     []*Command{criticListCmd(), criticRunCmd()}}
}

// criticListOptions are the flags of `the-loop critic list`.
type criticListOptions struct {
	service.CriticListRequest
	Format string
}

func criticListCmd() *Command {
	const usage = "critic list [--format table|json]"
	return &Command{Name: "list", Usage: usage, Summary: "which configured critics can run here (executable found, version probe)",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &criticListOptions{}
			fs := f.flagSet("critic list", usage)
			fs.StringVar(&opts.Format, "format", "table", "table or json")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(pos) > 0 {
				return usageErrorf("critic list takes no arguments, got %q", strings.Join(pos, " "))
			}
			if err := oneOf("format", opts.Format, "table", "json"); err != nil {
				return err
			}
			return runCriticList(ctx, f, opts)
		}}
}

// runCriticList prints every configured critic; it is unmet work (exit 1)
// when one of them cannot run.
func runCriticList(ctx context.Context, f *Factory, opts *criticListOptions) error {
	res, err := call(ctx, f, ServiceOptions{}, (*service.Service).CriticList, opts.CriticListRequest)
	if err != nil {
		return err
	}
	unavailable := 0
	err = f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		for _, c := range res.Critics {
			if c.Available {
				fmt.Fprintf(w, "%-12s available    %s  %s\n", c.Name, c.Path, c.Version)
			} else {
				fmt.Fprintf(w, "%-12s unavailable  %s\n", c.Name, c.Unavailable)
			}
		}
		fmt.Fprintf(w, "review caps: %d self-review rounds, %d critic rounds\n", res.Reviews.SelfReviewCount, res.Reviews.CriticReviewCount)
	})
	if err != nil {
		return err
	}
	for _, c := range res.Critics {
		if !c.Available {
			unavailable++
		}
	}
	if unavailable > 0 {
		return unmet("")
	}
	return nil
}

const criticRunUsage = "critic run <name> --prompt-file F [--work-item ID [--pr N [--pr-repo OWNER/REPO]]] [--repo DIR] [--db FILE]"

// criticRunOptions are the flags of `the-loop critic run`.
type criticRunOptions struct {
	service.CriticRunRequest
	DB string
}

func criticRunCmd() *Command {
	return &Command{Name: "run", Usage: criticRunUsage,
		Summary: "run one critic round, print its JSON envelope, and record it on --work-item",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &criticRunOptions{}
			fs := f.flagSet("critic run", criticRunUsage)
			fs.StringVar(&opts.PromptFile, "prompt-file", "", "the review assignment the critic is given")
			fs.StringVar(&opts.WorkItem, "work-item", "", "record the round on this work item, at the node it stands at")
			fs.IntVar(&opts.PR, "pr", 0, "record it on this pull request's loop of the work item instead, at the node that loop stands at")
			fs.StringVar(&opts.PRRepo, "pr-repo", "", "OWNER/REPO of that pull request (default: the origin repository)")
			fs.StringVar(&opts.Repo, "repo", ".", "repository root (the critic runs in it)")
			fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(pos) != 1 {
				return usageErrorf("usage: the-loop %s", criticRunUsage)
			}
			if strings.TrimSpace(opts.PromptFile) == "" {
				return usageErrorf("--prompt-file is required: the file holding the review assignment")
			}
			opts.Critic, opts.Repo, opts.PromptFile = pos[0], f.path(opts.Repo), f.path(opts.PromptFile)
			return runCriticRun(ctx, f, opts)
		}}
}

// runCriticRun prints the round's one JSON envelope (what a harness
// parses); a round that does not count is unmet work (exit 1).
func runCriticRun(ctx context.Context, f *Factory, opts *criticRunOptions) error {
	res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).CriticRun, opts.CriticRunRequest)
	if err != nil {
		return err
	}
	if err := f.emit("json", res.Warnings, res, nil); err != nil {
		return err
	}
	if res.Node != "" {
		fmt.Fprintf(f.Stderr, "recorded on %s at %s as %s\n", opts.WorkItem, res.Node, res.RunID)
	}
	if !res.Counts() {
		return unmet("")
	}
	return nil
}
