package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/service"
)

func harnessCmd() *Command {
	return &Command{Name: "harness", Noun: "subcommand", Usage: "harness <subcommand> [flags]",
		Summary: "list the configured agent harnesses and whether each can run here",
		Sub:     []*Command{harnessListCmd()}}
}

// harnessListOptions are the flags of `the-loop harness list`.
type harnessListOptions struct {
	service.HarnessListRequest
	Format string
}

func harnessListCmd() *Command {
	const usage = "harness list [--format table|json]"
	return &Command{Name: "list", Usage: usage,
		Summary: "each configured harness: its program found, its version, and whether its help lists every flag its adapter passes",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &harnessListOptions{}
			fs := f.flagSet("harness list", usage)
			fs.StringVar(&opts.Format, "format", "table", "table or json")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(pos) > 0 {
				return usageErrorf("harness list takes no arguments, got %q", strings.Join(pos, " "))
			}
			if err := oneOf("format", opts.Format, "table", "json"); err != nil {
				return err
			}
			return runHarnessList(ctx, f, opts)
		}}
}

// runHarnessList prints every configured harness; it is unmet work (exit
// 1) when one of them cannot run.
func runHarnessList(ctx context.Context, f *Factory, opts *harnessListOptions) error {
	res, err := call(ctx, f, ServiceOptions{}, (*service.Service).HarnessList, opts.HarnessListRequest)
	if err != nil {
		return err
	}
	err = f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		for _, h := range res.Harnesses {
			if !h.Available {
				fmt.Fprintf(w, "%s (adapter %s): cannot run: %s\n", h.Name, h.Adapter, h.Unavailable)
				continue
			}
			version := h.Version
			if version == "" {
				version = "no --version"
			}
			fmt.Fprintf(w, "%s (adapter %s): runs %s, %s\n", h.Name, h.Adapter, h.Path, version)
			if h.Help != "" {
				fmt.Fprintf(w, "  flags: `%s` lists every flag it passes (%d)\n", h.Help, len(h.Flags))
			} else {
				fmt.Fprintf(w, "  flags: not checked (the command adapter runs the argv you configured)\n")
			}
			fmt.Fprintf(w, "  reads: %s; cost %s\n", h.Output, h.Cost)
		}
	})
	if err != nil {
		return err
	}
	bad := 0
	for _, h := range res.Harnesses {
		if !h.Available {
			bad++
		}
	}
	if bad > 0 {
		return unmet(fmt.Sprintf("%d of %d configured harnesses cannot run here", bad, len(res.Harnesses)))
	}
	return nil
}
