package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/the-loop/the-loop/integrations/tickets"
	"github.com/the-loop/the-loop/service"
)

func ticketCmd() *Command {
	return &Command{Name: "ticket", Noun: "subcommand", Usage: "ticket <subcommand> [flags]",
		Summary: "create a GitHub or Jira ticket; list the configured Jira projects",
		Sub:     []*Command{ticketCreateCmd(), ticketProjectsCmd()}}
}

const ticketCreateUsage = "ticket create --system github|jira (--repo OWNER/REPO | --project KEY) --title T (--body-file F | --body B) [--labels a,b] [--issue-type Story] [--parent KEY-1] [--mirror-of URL] [--format table|json]"

// ticketCreateOptions are the flags of `the-loop ticket create`.
type ticketCreateOptions struct {
	service.TicketCreateRequest
	BodyFile string
	Format   string
}

func ticketCreateCmd() *Command {
	return &Command{Name: "create", Usage: ticketCreateUsage, Summary: "open a GitHub issue or a Jira ticket",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &ticketCreateOptions{}
			if err := parseTicketCreate(f, opts, args); err != nil {
				return err
			}
			return runTicketCreate(ctx, f, opts)
		}}
}

func parseTicketCreate(f *Factory, opts *ticketCreateOptions, args []string) error {
	fs := f.flagSet("ticket create", ticketCreateUsage)
	o := &opts.CreateOptions
	var labels string
	fs.StringVar(&o.System, "system", "", "ticket system: github or jira")
	fs.StringVar(&o.Repo, "repo", "", "OWNER/REPO (github)")
	fs.StringVar(&o.Project, "project", "", "project key from integrations.jira.projects (jira)")
	fs.StringVar(&o.Title, "title", "", "ticket title (Jira summary)")
	fs.StringVar(&o.Body, "body", "", "ticket body")
	fs.StringVar(&opts.BodyFile, "body-file", "", "read the body from this file (- for stdin)")
	fs.StringVar(&labels, "labels", "", "comma-separated labels")
	fs.StringVar(&o.IssueType, "issue-type", "", "Jira issue type (default Task)")
	fs.StringVar(&o.Parent, "parent", "", "Jira parent (epic) key, e.g. PROJ-1")
	fs.StringVar(&o.MirrorOf, "mirror-of", "", "GitHub issue URL this Jira ticket mirrors")
	fs.StringVar(&opts.Format, "format", "table", "output: table or json")
	rest, err := f.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErrorf("ticket create takes no positional arguments (got %q)", strings.Join(rest, " "))
	}
	if err := oneOf("format", opts.Format, "table", "json"); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case set["body"] && set["body-file"]:
		return usageErrorf("give either --body or --body-file, not both")
	case !set["body"] && !set["body-file"]:
		return usageErrorf("--body or --body-file is required")
	case set["body-file"]:
		body, err := readInput(f, opts.BodyFile)
		if err != nil {
			return usageErrorf("--body-file: %v", err)
		}
		o.Body = string(body)
	}
	if labels != "" {
		o.Labels = strings.Split(labels, ",")
	}
	return nil
}

// runTicketCreate creates the ticket. When only naming a Jira mirror in
// its GitHub issue failed, the ticket exists: it is printed, then the error.
func runTicketCreate(ctx context.Context, f *Factory, opts *ticketCreateOptions) error {
	created, err := call(ctx, f, ServiceOptions{}, (*service.Service).TicketCreate, opts.TicketCreateRequest)
	var mle *tickets.MirrorLinkError
	if err != nil && !errors.As(err, &mle) {
		return err
	}
	if werr := f.emit(opts.Format, created.Warnings, created, func(w io.Writer) {
		fmt.Fprintf(w, "%s\t%s\n", created.Key, created.URL)
	}); werr != nil {
		return werr
	}
	return err
}

const ticketProjectsUsage = "ticket projects [--format table|json]"

func ticketProjectsCmd() *Command {
	return &Command{Name: "projects", Usage: ticketProjectsUsage, Summary: "list the Jira projects tickets may be created in",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			var format string
			fs := f.flagSet("ticket projects", ticketProjectsUsage)
			fs.StringVar(&format, "format", "table", "output: table or json")
			rest, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageErrorf("ticket projects takes no positional arguments (got %q)", strings.Join(rest, " "))
			}
			if err := oneOf("format", format, "table", "json"); err != nil {
				return err
			}
			return runTicketProjects(ctx, f, format)
		}}
}

func runTicketProjects(ctx context.Context, f *Factory, format string) error {
	res, err := call(ctx, f, ServiceOptions{}, (*service.Service).TicketProjects, service.TicketProjectsRequest{})
	if err != nil {
		return err
	}
	return f.emit(format, res.Warnings, res, func(w io.Writer) {
		if len(res.Projects) == 0 {
			fmt.Fprintln(f.Stderr, "no Jira projects are configured; add keys to integrations.jira.projects")
		}
		for _, k := range res.Projects {
			fmt.Fprintln(w, k)
		}
	})
}

// readInput reads a file named on the command line (relative to the
// working directory), or stdin for "-".
func readInput(f *Factory, path string) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(f.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(f.path(path))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}
