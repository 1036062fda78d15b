package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/handoff"
)

func handoffParseCmd() *Command {
	const usage = "handoff parse FILE [PART-FILE...]"
	return &Command{Name: "parse", Usage: usage, Summary: "check a record comment locally and print it as JSON",
		Run: func(_ context.Context, f *Factory, args []string) error {
			fs := f.flagSet("handoff parse", usage)
			files, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(files) == 0 {
				return usageErrorf("handoff parse needs FILE, the record comment to check (- for stdin)")
			}
			return runHandoffParse(f, files)
		}}
}

// runHandoffParse validates a wire-format record (with its continuation
// parts, in order, either in the same file or as further files; "-" reads
// stdin) and prints the record as JSON, or the rejection on stderr with
// exit 1.
func runHandoffParse(f *Factory, files []string) error {
	bodies := make([]string, 0, len(files))
	for _, p := range files {
		data, err := readInput(f, p)
		if err != nil {
			return err
		}
		bodies = append(bodies, string(data))
	}
	rec, err := handoff.ParseComments(bodies[0], bodies[1:])
	if err != nil {
		return unmet(err.Error())
	}
	out, err := handoff.EncodeJSON(rec)
	if err != nil {
		return err
	}
	_, err = f.Stdout.Write(out)
	return err
}

// handoffRenderOptions are the flags of `the-loop handoff render`.
type handoffRenderOptions struct {
	RecordFile, FilesDir, OutDir string
}

func handoffRenderCmd() *Command {
	const usage = "handoff render --record FILE.json [--files DIR] [--out DIR]"
	return &Command{Name: "render", Usage: usage, Summary: "turn a JSON record into its comment wire format",
		Run: func(_ context.Context, f *Factory, args []string) error {
			opts := &handoffRenderOptions{}
			fs := f.flagSet("handoff render", usage)
			fs.StringVar(&opts.RecordFile, "record", "", "the record as JSON (the state's handoff block shape)")
			fs.StringVar(&opts.FilesDir, "files", "", "directory holding the carried files (carried-by ticket)")
			fs.StringVar(&opts.OutDir, "out", "", "write record.md and part-N.md here instead of stdout")
			pos, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(pos) > 0 {
				return usageErrorf("handoff render takes no positional arguments (got %q); pass the record with --record FILE.json", pos[0])
			}
			if opts.RecordFile == "" {
				return usageErrorf("handoff render needs --record FILE.json")
			}
			return runHandoffRender(f, opts)
		}}
}

// runHandoffRender turns a JSON record into its wire format, refusing an
// invalid record with the reasons parse gives. Without --out the comments
// go to stdout joined by newlines (a form parse reads back); with --out
// they are written as record.md, part-1.md, ...
func runHandoffRender(f *Factory, opts *handoffRenderOptions) error {
	rec, err := loadRecord(f, "handoff render", opts.RecordFile, opts.FilesDir)
	if err != nil {
		return err
	}
	comments, err := handoff.Render(rec)
	if err != nil {
		return unmet(err.Error())
	}
	if opts.OutDir == "" {
		_, err := io.WriteString(f.Stdout, strings.Join(comments, "\n"))
		return err
	}
	dir := f.path(opts.OutDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for i, c := range comments {
		name := "record.md"
		if i > 0 {
			name = fmt.Sprintf("part-%d.md", i)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		fmt.Fprintln(f.Stdout, path)
	}
	return nil
}
