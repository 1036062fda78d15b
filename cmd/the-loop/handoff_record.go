package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/handoff"
)

// runHandoffParse implements "handoff parse FILE [PART...]": it validates a
// wire-format record (with its continuation parts, in order, either in the
// same file or as further files; "-" reads stdin) and prints the record as
// JSON, or the rejection on stderr with exit 1.
func runHandoffParse(f *Factory, args []string) error {
	fs := flagSet(f, "handoff parse", "handoff parse FILE [PART-FILE...]")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("handoff parse needs FILE, the record comment to check (- for stdin)")
	}
	bodies := make([]string, 0, len(pos))
	for _, p := range pos {
		data, err := handoffReadInput(f, p)
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

// runHandoffRender implements "handoff render --record FILE.json": it turns
// a JSON record into its wire format, refusing an invalid record with the
// reasons parse gives. Bodies for carried-by ticket come from --files DIR.
// Without --out the comments go to stdout joined by newlines (a form parse
// reads back); with --out they are written as record.md, part-1.md, ...
func runHandoffRender(f *Factory, args []string) error {
	fs := flagSet(f, "handoff render", "handoff render --record FILE.json [--files DIR] [--out DIR]")
	recordPath := fs.String("record", "", "the record as JSON (the state's handoff block shape)")
	filesDir := fs.String("files", "", "directory holding the carried files (carried-by ticket)")
	outDir := fs.String("out", "", "write record.md and part-N.md here instead of stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("handoff render takes no positional arguments (got %q); pass the record with --record FILE.json", pos[0])
	}
	if *recordPath == "" {
		return usageErrorf("handoff render needs --record FILE.json")
	}
	data, err := handoffReadInput(f, *recordPath)
	if err != nil {
		return err
	}
	rec, err := handoff.DecodeJSON(data)
	if err != nil {
		return unmet(err.Error())
	}
	switch {
	case rec.CarriedBy == handoff.CarriedByTicket && *filesDir == "":
		return usageErrorf("the record is carried-by ticket; pass --files DIR holding %s", strings.Join(rec.Names(), ", "))
	case rec.CarriedBy != handoff.CarriedByTicket && *filesDir != "":
		return usageErrorf("--files is only for carried-by ticket records (this one is carried-by %q); drop --files", rec.CarriedBy)
	case *filesDir != "":
		src := handoff.DirSource(handoffPath(f, *filesDir))
		rec.Files = map[string]string{}
		for _, name := range rec.Names() {
			body, err := src.Read(name)
			if err != nil {
				return unmet(fmt.Sprintf("handoff render: %v", err))
			}
			rec.Files[name] = string(body)
		}
	}
	comments, err := handoff.Render(rec)
	if err != nil {
		return unmet(err.Error())
	}
	if *outDir == "" {
		_, err := io.WriteString(f.Stdout, strings.Join(comments, "\n"))
		return err
	}
	dir := handoffPath(f, *outDir)
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

// handoffReadInput reads a file named on the command line, or stdin for "-".
func handoffReadInput(f *Factory, path string) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(f.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(handoffPath(f, path))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// handoffPath makes path relative to the command's working directory.
func handoffPath(f *Factory, path string) string {
	if filepath.IsAbs(path) || f.Cwd == "" {
		return path
	}
	return filepath.Join(f.Cwd, path)
}
