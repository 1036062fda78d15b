package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/service"
)

const (
	handoffPostUsage   = "handoff post --work-item REF --record FILE.json [--files DIR] [--repo DIR] [--format table|json]"
	handoffShowUsage   = "handoff show <id> [--repo DIR] [--db FILE] [--format table|json]"
	handoffImportUsage = "handoff import <id> [--from-dir DIR | --from-artifact PAGE.html] [--repo DIR] [--db FILE] [--format table|json]"
	handoffNoteUsage   = "handoff note <id> --branch the-loop/... --pull-request N [--repo DIR] [--db FILE] [--format table|json]"
)

func init() {
	register(&Command{
		Name:    "handoff",
		Usage:   "handoff <parse|render|post|show|import|note> ...",
		Summary: "check, render and post a handoff record; show, import and note the one frozen in state",
		Run:     runHandoff,
	})
}

var handoffActions = map[string]func(ctx context.Context, f *Factory, args []string) error{
	"parse":  func(_ context.Context, f *Factory, args []string) error { return runHandoffParse(f, args) },
	"render": func(_ context.Context, f *Factory, args []string) error { return runHandoffRender(f, args) },
	"post":   handoffPost,
	"show":   handoffShow,
	"import": handoffImport,
	"note":   handoffNote,
}

func runHandoff(ctx context.Context, f *Factory, args []string) error {
	names := make([]string, 0, len(handoffActions))
	for n := range handoffActions {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		return usageErrorf("handoff needs an action: %s", strings.Join(names, ", "))
	}
	act, ok := handoffActions[args[0]]
	if !ok {
		return usageErrorf("unknown handoff action %q: use one of %s", args[0], strings.Join(names, ", "))
	}
	return act(ctx, f, args[1:])
}

// handoffPost renders a JSON record (and its carried files) and posts the
// record and its continuation parts on the ticket, self-marked.
func handoffPost(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "handoff post", handoffPostUsage)
	workItem := fs.String("work-item", "", "the ticket: github:OWNER/REPO#N, OWNER/REPO#N, jira:KEY-1")
	recordPath := fs.String("record", "", "the record as JSON (- for stdin)")
	filesDir := fs.String("files", "", "directory holding the carried files (carried-by ticket)")
	repo := fs.String("repo", ".", "repository checkout whose harness config names the spec folder")
	format := fs.String("format", "table", "table or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageErrorf("handoff post takes no positional arguments (got %q); name the ticket with --work-item", pos[0])
	case *workItem == "":
		return usageErrorf("handoff post needs --work-item REF, the ticket to post on")
	case *recordPath == "":
		return usageErrorf("handoff post needs --record FILE.json")
	}
	if err := oneOf("format", *format, "table", "json"); err != nil {
		return err
	}
	rec, err := handoffLoadRecord(f, *recordPath, *filesDir)
	if err != nil {
		return err
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.HandoffPost(ctx, service.HandoffPostRequest{Repo: handoffPath(f, *repo), WorkItem: *workItem, Record: rec, By: svc.Config().Routing.Operator})
	if errors.Is(err, service.ErrHandoffRefused) {
		return unmet(err.Error())
	}
	if err != nil {
		return err
	}
	printWarnings(f, res.Warnings)
	if *format == "json" {
		return writeJSON(f.Stdout, res)
	}
	for _, c := range res.Comments {
		what := "posted"
		if c.Existing {
			what = "already there"
		}
		name := "record"
		if c.Part > 0 {
			name = fmt.Sprintf("part %d", c.Part)
		}
		fmt.Fprintf(f.Stdout, "%s\t%s\t%s\n", name, what, c.URL)
	}
	return nil
}

// handoffLoadRecord reads a JSON record strictly and, for carried-by
// ticket, its bodies from filesDir.
func handoffLoadRecord(f *Factory, recordPath, filesDir string) (handoff.Record, error) {
	data, err := handoffReadInput(f, recordPath)
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
		src := handoff.DirSource(handoffPath(f, filesDir))
		rec.Files = map[string]string{}
		for _, name := range rec.Names() {
			body, err := src.Read(name)
			if err != nil {
				return rec, unmet(fmt.Sprintf("handoff post: %v", err))
			}
			rec.Files[name] = string(body)
		}
	}
	return rec, nil
}

// handoffShow prints the handoff frozen in state (read-only).
func handoffShow(ctx context.Context, f *Factory, args []string) error {
	svc, req, format, err := openItem(f, "handoff show", handoffShowUsage, args, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	req.Repo = handoffPath(f, req.Repo)
	v, err := svc.HandoffShow(ctx, req)
	if err != nil {
		return err
	}
	printWarnings(f, v.Warnings)
	if format == "json" {
		if err := writeJSON(f.Stdout, v); err != nil {
			return err
		}
	} else if v.Handoff != nil {
		rec, _ := handoff.DecodeJSON(v.Handoff.Record)
		fmt.Fprintf(f.Stdout, "%s: handed off by @%s at %s, enter %s, carried by %s\n", v.WorkItem, strings.TrimLeft(v.Handoff.Author, "@"), rec.Stage, rec.Enter, rec.CarriedBy)
		fmt.Fprintf(f.Stdout, "  record: %s (frozen %s)\n", v.Handoff.CommentURL, v.Handoff.RecordedAt)
		for _, a := range rec.Artifacts {
			fmt.Fprintf(f.Stdout, "  - %s sha256:%s\n", a.Name, a.SHA256)
		}
		if v.ClaudeArtifactURL != "" {
			fmt.Fprintf(f.Stdout, "  spec-chain artifact: %s\n", v.ClaudeArtifactURL)
		}
		for _, d := range v.HandoffDemoted {
			fmt.Fprintf(f.Stdout, "  demoted to %s (%s): %s\n", d.Node, d.Artifact, d.Reason)
		}
	}
	if v.Handoff == nil {
		return unmet(fmt.Sprintf("%s carries no handoff (a record is read once, when the item is armed)", v.WorkItem))
	}
	return nil
}

// handoffImport writes the carried files into the spec folder, verified.
func handoffImport(ctx context.Context, f *Factory, args []string) error {
	var fromDir, fromArtifact *string
	svc, req, format, err := openItem(f, "handoff import", handoffImportUsage, args, func(fs *flagSetT) {
		fromDir = fs.String("from-dir", "", "directory holding the files extracted from the spec-chain artifact")
		fromArtifact = fs.String("from-artifact", "", "a saved spec-chain artifact page (its embedded files are read)")
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	ireq := service.HandoffImportRequest{ItemRequest: service.ItemRequest{Repo: handoffPath(f, req.Repo), WorkItem: req.WorkItem}}
	if *fromDir != "" {
		ireq.FromDir = handoffPath(f, *fromDir)
	}
	if *fromArtifact != "" {
		ireq.FromArtifact = handoffPath(f, *fromArtifact)
	}
	res, err := svc.HandoffImport(ctx, ireq)
	if err != nil {
		return err
	}
	printWarnings(f, res.Warnings)
	if format == "json" {
		if err := writeJSON(f.Stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(f.Stdout, "%s: imported from %s into %s/\n", res.WorkItem, res.Source, res.SpecDir)
		for _, n := range res.Written {
			fmt.Fprintf(f.Stdout, "  verified  %s\n", n)
		}
		for _, bad := range res.Failed {
			fmt.Fprintf(f.Stdout, "  REFUSED   %s — %s; not written\n", bad.Name, bad.Reason)
		}
		for _, n := range res.Held {
			fmt.Fprintf(f.Stdout, "  held      %s — verified, but after a refused file; its phase runs again\n", n)
		}
	}
	if !res.OK {
		return unmet("some carried files were refused: the import-handoff node demotes the walk to the phase that produces the first one")
	}
	return nil
}

// handoffNote points the record at the committed files and the PR.
func handoffNote(ctx context.Context, f *Factory, args []string) error {
	var branch *string
	var pr *int
	svc, req, format, err := openItem(f, "handoff note", handoffNoteUsage, args, func(fs *flagSetT) {
		branch = fs.String("branch", "", "the branch the files were committed on (the-loop/...)")
		pr = fs.Int("pull-request", 0, "that branch's pull request number")
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	switch {
	case *branch == "":
		return usageErrorf("handoff note needs --branch, the branch the files were committed on")
	case *pr <= 0:
		return usageErrorf("handoff note needs --pull-request N, the branch's pull request")
	}
	res, err := svc.HandoffNote(ctx, service.HandoffNoteRequest{ItemRequest: service.ItemRequest{Repo: handoffPath(f, req.Repo), WorkItem: req.WorkItem},
		Branch: *branch, PullRequest: *pr})
	if err != nil {
		return err
	}
	printWarnings(f, res.Warnings)
	if format == "json" {
		return writeJSON(f.Stdout, res)
	}
	fmt.Fprintf(f.Stdout, "%s: %s %s\n", req.WorkItem, res.Action, res.CommentURL)
	if len(res.Unverified) > 0 {
		fmt.Fprintf(f.Stdout, "  not committed as handed off: %s\n", strings.Join(res.Unverified, ", "))
	}
	return nil
}
