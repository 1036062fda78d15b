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

	"github.com/the-loop/the-loop/integrations/tickets"
	"github.com/the-loop/the-loop/service"
)

const ticketCreateUsage = "ticket create --system github|jira (--repo OWNER/REPO | --project KEY) --title T (--body-file F | --body B) [--labels a,b] [--issue-type Story] [--parent KEY-1] [--mirror-of URL] [--format table|json]"

const ticketProjectsUsage = "ticket projects [--format table|json]"

func init() {
	register(&Command{
		Name:    "ticket",
		Usage:   "ticket create|projects [flags]",
		Summary: "create a GitHub or Jira ticket; list the configured Jira projects",
		Run:     runTicket,
	})
}

func runTicket(ctx context.Context, f *Factory, args []string) error {
	if len(args) == 0 {
		return usageErrorf("ticket needs a subcommand: create or projects")
	}
	switch args[0] {
	case "create":
		return ticketCreate(ctx, f, args[1:])
	case "projects":
		return ticketProjects(f, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintf(f.Stderr, "usage:\n  the-loop %s\n  the-loop %s\n", ticketCreateUsage, ticketProjectsUsage)
		return flag.ErrHelp
	}
	return usageErrorf("unknown ticket subcommand %q: use create or projects", args[0])
}

func ticketCreate(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "ticket create", ticketCreateUsage)
	var o tickets.CreateOptions
	var bodyFile, labels, format string
	fs.StringVar(&o.System, "system", "", "ticket system: github or jira")
	fs.StringVar(&o.Repo, "repo", "", "OWNER/REPO (github)")
	fs.StringVar(&o.Project, "project", "", "project key from integrations.jira.projects (jira)")
	fs.StringVar(&o.Title, "title", "", "ticket title (Jira summary)")
	fs.StringVar(&o.Body, "body", "", "ticket body")
	fs.StringVar(&bodyFile, "body-file", "", "read the body from this file (- for stdin)")
	fs.StringVar(&labels, "labels", "", "comma-separated labels")
	fs.StringVar(&o.IssueType, "issue-type", "", "Jira issue type (default Task)")
	fs.StringVar(&o.Parent, "parent", "", "Jira parent (epic) key, e.g. PROJ-1")
	fs.StringVar(&o.MirrorOf, "mirror-of", "", "GitHub issue URL this Jira ticket mirrors")
	fs.StringVar(&format, "format", "table", "output: table or json")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErrorf("ticket create takes no positional arguments (got %q)", strings.Join(rest, " "))
	}
	if err := oneOf("format", format, "table", "json"); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["body"] && set["body-file"]:
		return usageErrorf("give either --body or --body-file, not both")
	case !set["body"] && !set["body-file"]:
		return usageErrorf("--body or --body-file is required")
	case set["body-file"]:
		body, err := readBody(f, bodyFile)
		if err != nil {
			return usageErrorf("--body-file: %v", err)
		}
		o.Body = body
	}
	if labels != "" {
		o.Labels = strings.Split(labels, ",")
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	created, err := svc.TicketCreate(ctx, service.TicketCreateRequest{CreateOptions: o})
	var mle *tickets.MirrorLinkError
	if err != nil && !errors.As(err, &mle) {
		return err
	}
	if werr := writeCreated(f.Stdout, format, created.Created); werr != nil {
		return werr
	}
	return err
}

func readBody(f *Factory, path string) (string, error) {
	if path == "-" {
		data, err := io.ReadAll(f.Stdin)
		return string(data), err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func writeCreated(w io.Writer, format string, c tickets.Created) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(c)
	}
	_, err := fmt.Fprintf(w, "%s\t%s\n", c.Key, c.URL)
	return err
}

func ticketProjects(f *Factory, args []string) error {
	fs := flagSet(f, "ticket projects", ticketProjectsUsage)
	format := fs.String("format", "table", "output: table or json")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErrorf("ticket projects takes no positional arguments (got %q)", strings.Join(rest, " "))
	}
	if err := oneOf("format", *format, "table", "json"); err != nil {
		return err
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.TicketProjects(context.Background(), service.TicketProjectsRequest{})
	if err != nil {
		return err
	}
	keys := res.Projects
	if *format == "json" {
		return json.NewEncoder(f.Stdout).Encode(res)
	}
	if len(keys) == 0 {
		fmt.Fprintln(f.Stderr, "no Jira projects are configured; add keys to integrations.jira.projects")
		return nil
	}
	for _, k := range keys {
		fmt.Fprintln(f.Stdout, k)
	}
	return nil
}
