package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/the-loop/the-loop/service"
)

// graphSkipOptions are the flags of `the-loop graph skip`.
type graphSkipOptions struct {
	itemOptions
	Nodes         []string
	Reason, Actor string
	Withdraw      bool
}

func graphSkipCmd() *Command {
	const usage = "graph skip <id> --node N [--node N...] --reason R [--withdraw] [--actor WHO] [--repo DIR]"
	return &Command{Name: "skip", Usage: usage, Summary: "operator act: declare a phase skipped before the walk reaches it, or withdraw the declaration",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphSkipOptions{}
			fs := f.flagSet("graph skip", usage)
			opts.bind(fs, "table")
			fs.Var(stringsFlag{dst: &opts.Nodes}, "node", "a skippable node or skip set (repeatable)")
			fs.StringVar(&opts.Reason, "reason", "", "why this work item does not walk the phase (required)")
			fs.StringVar(&opts.Actor, "actor", "", "who declares it (default (shell))")
			fs.BoolVar(&opts.Withdraw, "withdraw", false, "withdraw the declared skips of the named nodes instead: they are walked again")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runGraphSkip(ctx, f, opts)
		}}
}

func runGraphSkip(ctx context.Context, f *Factory, opts *graphSkipOptions) error {
	if err := refuseInSession(f, "graph skip"); err != nil {
		return err
	}
	res, err := call(ctx, f, opts.store(), (*service.Service).Skip, service.SkipRequest{ItemRequest: opts.ItemRequest, Nodes: opts.Nodes, Reason: opts.Reason, Withdraw: opts.Withdraw, Actor: opts.Actor})
	if errors.Is(err, service.ErrInvalidRequest) {
		return refused(err)
	}
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		for _, d := range res.Declared {
			fmt.Fprintf(w, "declared: %s will be skipped\n", d)
		}
		for _, d := range res.Withdrawn {
			fmt.Fprintf(w, "withdrawn: %s will be walked\n", d)
		}
		for _, r := range res.Rejected {
			fmt.Fprintf(w, "rejected: %s — %s\n", r.Token, r.Why)
		}
		for _, warning := range res.SkipResult.Cautions {
			fmt.Fprintf(w, "  WARNING: %s\n", warning)
		}
		if len(res.Declared) > 0 {
			fmt.Fprintln(w, "  note: these are declarations, not verdicts — `the-loop check` reports each node as skipped by declaration, and the never-skippable gates still run.")
		}
	})
	if err == nil && len(res.Rejected) > 0 {
		// A partial rejection is not a success: a script must not read the
		// skips it asked for as all in place.
		what := "1 name was rejected"
		if n := len(res.Rejected); n > 1 {
			what = fmt.Sprintf("%d names were rejected", n)
		}
		if len(res.Declared)+len(res.Withdrawn) == 0 {
			return unmet("graph skip: " + what + " (listed above); nothing changed")
		}
		return unmet("graph skip: " + what + " (listed above); the others stand")
	}
	if err == nil && len(res.Declared)+len(res.Withdrawn) == 0 {
		return unmet("")
	}
	return err
}

// graphForceOptions are the flags of `the-loop graph force`.
type graphForceOptions struct {
	itemOptions
	To, Reason, Actor string
	PR                int
	PRRepo            string
}

func graphForceCmd() *Command {
	const usage = "graph force <id> --to NODE --reason R [--pr N [--pr-repo OWNER/REPO]] [--actor WHO] [--repo DIR]"
	return &Command{Name: "force", Usage: usage, Summary: "operator act: move the pointer; never forges a verdict",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &graphForceOptions{}
			fs := f.flagSet("graph force", usage)
			opts.bind(fs, "table")
			fs.StringVar(&opts.To, "to", "", "the node to move the pointer to (required)")
			fs.StringVar(&opts.Reason, "reason", "", "why you are bypassing the gate (required)")
			fs.StringVar(&opts.Actor, "actor", "", "who forces it (default (shell))")
			fs.IntVar(&opts.PR, "pr", 0, "move the pointer of this pull request's loop (its number) instead of the work item's")
			fs.StringVar(&opts.PRRepo, "pr-repo", "", "OWNER/REPO of that pull request (default: the origin repository)")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			if opts.To == "" {
				return usageErrorf("--to is required: name the node to move the pointer to")
			}
			if opts.PRRepo != "" && opts.PR == 0 {
				return usageErrorf("--pr-repo names the repository of --pr: give --pr N too")
			}
			return runGraphForce(ctx, f, opts)
		}}
}

func runGraphForce(ctx context.Context, f *Factory, opts *graphForceOptions) error {
	if err := refuseInSession(f, "graph force"); err != nil {
		return err
	}
	res, err := call(ctx, f, opts.store(), (*service.Service).Force, service.ForceRequest{ItemRequest: opts.ItemRequest, To: opts.To, Reason: opts.Reason,
		PR: opts.PR, PRRepo: opts.PRRepo, Actor: opts.Actor})
	if errors.Is(err, service.ErrInvalidRequest) {
		return refused(err)
	}
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		what := res.WorkItem
		if res.PullRequest != "" {
			what += " (the loop of pull request " + res.PullRequest + ")"
		}
		fmt.Fprintf(w, "forced %s: %s → %s\n  reason: %s\n", what, res.FromNode, res.ToNode, res.Reason)
		for _, warning := range res.ForceResult.Cautions {
			fmt.Fprintf(w, "  WARNING: %s\n", warning)
		}
		fmt.Fprintln(w, "  note: this moved the pointer only — the bypassed gate keeps its real verdict, so `the-loop check --recompute` will still report it.")
	})
}
