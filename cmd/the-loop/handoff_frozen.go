package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/service"
)

func handoffShowCmd() *Command {
	const usage = "handoff show <id> [--repo DIR] [--db FILE] [--format table|json]"
	return &Command{Name: "show", Usage: usage, Summary: "the handoff frozen in a work item's state (read-only)",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &itemOptions{}
			fs := f.flagSet("handoff show", usage)
			opts.bind(fs, "table")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runHandoffShow(ctx, f, opts)
		}}
}

func runHandoffShow(ctx context.Context, f *Factory, opts *itemOptions) error {
	v, err := call(ctx, f, opts.store(), (*service.Service).HandoffShow, opts.ItemRequest)
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, v.Warnings, v, func(w io.Writer) {
		if v.Handoff == nil {
			return
		}
		rec, _ := handoff.DecodeJSON(v.Handoff.Record)
		fmt.Fprintf(w, "%s: handed off by @%s at %s, enter %s, carried by %s\n", v.WorkItem, strings.TrimLeft(v.Handoff.Author, "@"), rec.Stage, rec.Enter, rec.CarriedBy)
		fmt.Fprintf(w, "  record: %s (frozen %s)\n", v.Handoff.CommentURL, v.Handoff.RecordedAt)
		for _, a := range rec.Artifacts {
			fmt.Fprintf(w, "  - %s sha256:%s\n", a.Name, a.SHA256)
		}
		if v.ClaudeArtifactURL != "" {
			fmt.Fprintf(w, "  spec-chain artifact: %s\n", v.ClaudeArtifactURL)
		}
		for _, d := range v.HandoffDemoted {
			fmt.Fprintf(w, "  demoted to %s (%s): %s\n", d.Node, d.Artifact, d.Reason)
		}
	})
	if err == nil && v.Handoff == nil {
		return unmet(fmt.Sprintf("%s carries no handoff (a record is read once, when the item is armed)", v.WorkItem))
	}
	return err
}

// handoffImportOptions are the flags of `the-loop handoff import`.
type handoffImportOptions struct {
	itemOptions
	FromDir, FromArtifact string
}

func handoffImportCmd() *Command {
	const usage = "handoff import <id> [--from-dir DIR | --from-artifact PAGE.html] [--repo DIR] [--db FILE] [--format table|json]"
	return &Command{Name: "import", Usage: usage, Summary: "write the carried files into the spec folder, verified",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &handoffImportOptions{}
			fs := f.flagSet("handoff import", usage)
			opts.bind(fs, "table")
			fs.StringVar(&opts.FromDir, "from-dir", "", "directory holding the files extracted from the spec-chain artifact")
			fs.StringVar(&opts.FromArtifact, "from-artifact", "", "a saved spec-chain artifact page (its embedded files are read)")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			return runHandoffImport(ctx, f, opts)
		}}
}

func runHandoffImport(ctx context.Context, f *Factory, opts *handoffImportOptions) error {
	res, err := call(ctx, f, opts.store(), (*service.Service).HandoffImport, service.HandoffImportRequest{ItemRequest: opts.ItemRequest,
		FromDir: f.path(opts.FromDir), FromArtifact: f.path(opts.FromArtifact)})
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		fmt.Fprintf(w, "%s: imported from %s into %s/\n", res.WorkItem, res.Source, res.SpecDir)
		for _, n := range res.Written {
			fmt.Fprintf(w, "  verified  %s\n", n)
		}
		for _, bad := range res.Failed {
			fmt.Fprintf(w, "  REFUSED   %s — %s; not written\n", bad.Name, bad.Reason)
		}
		for _, n := range res.Held {
			fmt.Fprintf(w, "  held      %s — verified, but after a refused file; its phase runs again\n", n)
		}
	})
	if err == nil && !res.OK {
		return unmet("some carried files were refused: the import-handoff node demotes the walk to the phase that produces the first one")
	}
	return err
}

// handoffNoteOptions are the flags of `the-loop handoff note`.
type handoffNoteOptions struct {
	itemOptions
	Branch      string
	PullRequest int
}

func handoffNoteCmd() *Command {
	const usage = "handoff note <id> --branch the-loop/... --pull-request N [--repo DIR] [--db FILE] [--format table|json]"
	return &Command{Name: "note", Usage: usage, Summary: "point the record at the committed files and their pull request",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &handoffNoteOptions{}
			fs := f.flagSet("handoff note", usage)
			opts.bind(fs, "table")
			fs.StringVar(&opts.Branch, "branch", "", "the branch the files were committed on (the-loop/...)")
			fs.IntVar(&opts.PullRequest, "pull-request", 0, "that branch's pull request number")
			if err := opts.parse(f, fs, args, usage); err != nil {
				return err
			}
			switch {
			case opts.Branch == "":
				return usageErrorf("handoff note needs --branch, the branch the files were committed on")
			case opts.PullRequest <= 0:
				return usageErrorf("handoff note needs --pull-request N, the branch's pull request")
			}
			return runHandoffNote(ctx, f, opts)
		}}
}

func runHandoffNote(ctx context.Context, f *Factory, opts *handoffNoteOptions) error {
	res, err := call(ctx, f, opts.store(), (*service.Service).HandoffNote, service.HandoffNoteRequest{ItemRequest: opts.ItemRequest, Branch: opts.Branch, PullRequest: opts.PullRequest})
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		fmt.Fprintf(w, "%s: %s %s\n", opts.WorkItem, res.Action, res.CommentURL)
		if len(res.Unverified) > 0 {
			fmt.Fprintf(w, "  not committed as handed off: %s\n", strings.Join(res.Unverified, ", "))
		}
	})
}
