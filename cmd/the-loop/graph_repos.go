package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/service"
)

// graphReposOptions are the flags of `the-loop graph repos`.
type graphReposOptions struct {
	itemOptions
	Repositories []string
	Clear        bool
	Actor        string
}

func graphReposCmd() *Command {
	const usage = "graph repos <id> [--repository OWNER/REPO ...] [--clear] [--actor WHO] [--repo DIR] [--format table|json]"
	return &Command{Name: "repos", Usage: usage, Summary: "operator act: declare the repositories the item needs code in (the full set; no flags prints it)",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphReposOptions{}
			fs := f.flagSet("graph repos", usage)
			opts.bind(fs, "table")
			fs.Var(stringsFlag{dst: &opts.Repositories}, "repository", "OWNER/REPO the item needs code in (repeatable: the full set)")
			fs.BoolVar(&opts.Clear, "clear", false, "declare that the item needs code in no repository")
			fs.StringVar(&opts.Actor, "actor", "", "who declares it (default (shell))")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			if opts.Clear && len(opts.Repositories) > 0 {
				return usageErrorf("give --repository or --clear, not both: the repositories are the full set")
			}
			if opts.Actor == "" {
				opts.Actor = "(shell)"
			}
			return runGraphRepos(ctx, f, opts)
		}}
}

func runGraphRepos(ctx context.Context, f *Factory, opts *graphReposOptions) error {
	if opts.Clear || len(opts.Repositories) > 0 {
		if err := refuseInSession(f, "graph repos"); err != nil {
			return err
		}
	}
	res, err := call(ctx, f, opts.store(), (*service.Service).GraphRepos,
		service.GraphReposRequest{ItemRequest: opts.ItemRequest, Repositories: opts.Repositories, Clear: opts.Clear, Actor: opts.Actor})
	if errors.Is(err, service.ErrInvalidRequest) {
		f.printWarnings(res.Warnings)
		return refused(err)
	}
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) { fmt.Fprintln(w, reposText(res)) })
}

// reposText is the declaration for people.
func reposText(res service.GraphReposResult) string {
	switch {
	case !res.Declared:
		return fmt.Sprintf("%s: no repository is declared; the origin repository is the one it needs a pull request in", res.WorkItem)
	case len(res.Repositories) == 0:
		return fmt.Sprintf("%s: declared to need code in no repository (by %s at %s)", res.WorkItem, res.By, res.At)
	}
	verb := "declared"
	if !res.Changed {
		verb = "declares"
	}
	return fmt.Sprintf("%s %s: %s (by %s at %s)\n  implementation waits until each has a pull request loop and every loop has finished",
		res.WorkItem, verb, strings.Join(res.Repositories, ", "), res.By, res.At)
}
