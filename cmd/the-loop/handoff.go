package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/service"
)

func handoffCmd() *Command {
	return &Command{Name: "handoff", Noun: "action", Usage: "handoff <action> ...",
		Summary: "check, render and post a handoff record; show, import and note the one frozen in state",
		Sub: []*Command{handoffParseCmd(), handoffRenderCmd(), handoffPostCmd(), handoffShowCmd(),
			handoffImportCmd(), handoffNoteCmd()}}
}

const handoffPostUsage = "handoff post --work-item REF --record FILE.json [--files DIR] [--repo DIR] [--format table|json]"

// handoffPostOptions are the flags of `the-loop handoff post`.
type handoffPostOptions struct {
	service.HandoffPostRequest
	RecordFile, FilesDir, Format string
}

func handoffPostCmd() *Command {
	return &Command{Name: "post", Usage: handoffPostUsage, Summary: "post a record and its parts on the ticket, for the operator",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &handoffPostOptions{}
			fs := f.flagSet("handoff post", handoffPostUsage)
			fs.StringVar(&opts.WorkItem, "work-item", "", "the ticket: github:OWNER/REPO#N, OWNER/REPO#N, jira:KEY-1")
			fs.StringVar(&opts.RecordFile, "record", "", "the record as JSON (- for stdin)")
			fs.StringVar(&opts.FilesDir, "files", "", "directory holding the carried files (carried-by ticket)")
			fs.StringVar(&opts.Repo, "repo", ".", "repository checkout whose repository config names the spec folder")
			fs.StringVar(&opts.Format, "format", "table", "table or json")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			switch {
			case len(pos) > 0:
				return usageErrorf("handoff post takes no positional arguments (got %q); name the ticket with --work-item", pos[0])
			case opts.WorkItem == "":
				return usageErrorf("handoff post needs --work-item REF, the ticket to post on")
			case opts.RecordFile == "":
				return usageErrorf("handoff post needs --record FILE.json")
			}
			if err := oneOf("format", opts.Format, "table", "json"); err != nil {
				return err
			}
			opts.Repo = f.path(opts.Repo)
			return runHandoffPost(ctx, f, opts)
		}}
}

// runHandoffPost renders the record (and its carried files) and posts the
// record and its continuation parts on the ticket, self-marked, for the
// operator (routing.operator).
func runHandoffPost(ctx context.Context, f *Factory, opts *handoffPostOptions) error {
	rec, err := loadRecord(f, "handoff post", opts.RecordFile, opts.FilesDir)
	if err != nil {
		return err
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	opts.Record, opts.By = rec, svc.Config().Routing.Operator
	res, err := svc.HandoffPost(ctx, opts.HandoffPostRequest)
	if errors.Is(err, service.ErrHandoffRefused) {
		return unmet(err.Error())
	}
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		for _, c := range res.Comments {
			what, name := "posted", "record"
			if c.Existing {
				what = "already there"
			}
			if c.Part > 0 {
				name = fmt.Sprintf("part %d", c.Part)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", name, what, c.URL)
		}
	})
}

// loadRecord reads a JSON record strictly and, for a record carried by the
// ticket, its files' bodies from filesDir: the record input of handoff post
// and handoff render.
func loadRecord(f *Factory, verb, recordPath, filesDir string) (handoff.Record, error) {
	data, err := readInput(f, recordPath)
	if err != nil {
		return handoff.Record{}, err
	}
	rec, err := handoff.DecodeJSON(data)
	if err != nil {
		return handoff.Record{}, unmet(err.Error())
	}
	switch {
	case rec.CarriedBy == handoff.CarriedByTicket && filesDir == "":
		return rec, usageErrorf("the record is carried-by ticket; pass --files DIR holding %s", strings.Join(rec.Names(), ", "))
	case rec.CarriedBy != handoff.CarriedByTicket && filesDir != "":
		return rec, usageErrorf("--files is only for carried-by ticket records (this one is carried-by %q); drop --files", rec.CarriedBy)
	case filesDir != "":
		src := handoff.DirSource(f.path(filesDir))
		rec.Files = map[string]string{}
		for _, name := range rec.Names() {
			body, err := src.Read(name)
			if err != nil {
				return rec, unmet(fmt.Sprintf("%s: %v", verb, err))
			}
			rec.Files[name] = string(body)
		}
	}
	return rec, nil
}
