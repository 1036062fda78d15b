package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

// call builds the core with o, calls op with the request and closes the
// core: the one way a verb reaches the core.
func call[Req, Res any](ctx context.Context, f *Factory, o ServiceOptions, op func(*service.Service, context.Context, Req) (Res, error), req Req) (Res, error) {
	svc, err := f.Service(o)
	if err != nil {
		var zero Res
		return zero, err
	}
	defer svc.Close()
	return op(svc, ctx, req)
}

// writeJSON prints v as indented UTF-8 JSON: every command's JSON output.
func writeJSON(w io.Writer, v any) error {
	b, err := runtime.MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// printWarnings prints what the core warns about on stderr, one line each
// (under --log-format json, one record each at level WARN).
func (f *Factory) printWarnings(warnings []string) {
	for _, w := range warnings {
		if f.LogFormat == "json" {
			f.Logger().Warn(w)
			continue
		}
		fmt.Fprintln(f.Stderr, w)
	}
}

// emit is every verb's output: the core's warnings on stderr, then the
// result as JSON (format "json") or as text for people (any other format)
// on stdout.
func (f *Factory) emit(format string, warnings []string, result any, text func(w io.Writer)) error {
	f.printWarnings(warnings)
	if format == "json" {
		return writeJSON(f.Stdout, result)
	}
	text(f.Stdout)
	return nil
}

// stringsFlag is a repeatable string flag collecting into dst; with commas,
// one value may also list several, comma-separated (blank ones dropped).
type stringsFlag struct {
	dst    *[]string
	commas bool
}

func (s stringsFlag) String() string {
	if s.dst == nil {
		return ""
	}
	return strings.Join(*s.dst, ",")
}

func (s stringsFlag) Set(v string) error {
	if !s.commas {
		*s.dst = append(*s.dst, v)
		return nil
	}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s.dst = append(*s.dst, p)
		}
	}
	return nil
}
