package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/internal/nearest"
)

// The one logger. Every line the process writes on stderr goes through the
// factory: log records (the core's, the providers' retry lines, mcp-go's,
// and — in the real process — the log package's and slog's default), the
// core's warnings, notes and the final error. With --log-format json each
// of them is one JSON object; with text (the default) they are written as
// they are, log records in slog's text form.

// logFormats are the values of --log-format.
var logFormats = []string{"text", "json"}

// logFormatFlag is --log-format, which every command accepts.
type logFormatFlag struct{ f *Factory }

func (l logFormatFlag) String() string {
	if l.f == nil {
		return "text"
	}
	return l.f.LogFormat
}

func (l logFormatFlag) Set(v string) error {
	for _, ok := range logFormats {
		if v == ok {
			l.f.LogFormat = v
			return nil
		}
	}
	hint := nearest.Phrase(nearest.Close(v, logFormats))
	if hint != "" {
		hint = "; " + hint
	}
	return fmt.Errorf("not one of text, json%s", hint)
}

// Logger is the process's logger: every record is written to stderr in the
// format --log-format names when it is written.
func (f *Factory) Logger() *slog.Logger { return slog.New(logHandler{f: f}) }

// baseHandler is the handler of the current format, on the raw stderr.
func (f *Factory) baseHandler() slog.Handler {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	if f.handlers == nil {
		f.handlers = map[string]slog.Handler{}
	}
	h, ok := f.handlers[f.LogFormat]
	if !ok {
		if f.LogFormat == "json" {
			h = slog.NewJSONHandler(f.raw, nil)
		} else {
			h = slog.NewTextHandler(f.raw, nil)
		}
		f.handlers[f.LogFormat] = h
	}
	return h
}

// logHandler resolves the factory's handler per record, so a logger made
// before the flags were parsed writes in the format they chose.
type logHandler struct {
	f   *Factory
	ops []func(slog.Handler) slog.Handler
}

func (h logHandler) resolve() slog.Handler {
	b := h.f.baseHandler()
	for _, op := range h.ops {
		b = op(b)
	}
	return b
}

func (h logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.resolve().Enabled(ctx, l)
}

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.resolve().Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{f: h.f, ops: append(h.ops[:len(h.ops):len(h.ops)], func(b slog.Handler) slog.Handler { return b.WithAttrs(as) })}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{f: h.f, ops: append(h.ops[:len(h.ops):len(h.ops)], func(b slog.Handler) slog.Handler { return b.WithGroup(name) })}
}

// stderrLines is the commands' stderr. Under --log-format json it turns each
// line into a record: "error: " lines at ERROR, "warning: " lines at WARN,
// every other line at INFO. Otherwise it writes through.
type stderrLines struct {
	f       *Factory
	mu      sync.Mutex
	pending []byte
}

func (s *stderrLines) Write(p []byte) (int, error) {
	if s.f.LogFormat != "json" {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.f.raw.Write(p)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, p...)
	for {
		i := bytes.IndexByte(s.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		s.record(string(s.pending[:i]))
		s.pending = s.pending[i+1:]
	}
}

// flush writes a last line that had no newline.
func (s *stderrLines) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 {
		if s.f.LogFormat == "json" {
			s.record(string(s.pending))
		} else {
			_, _ = s.f.raw.Write(s.pending)
		}
		s.pending = nil
	}
}

func (s *stderrLines) record(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	level := slog.LevelInfo
	for prefix, l := range map[string]slog.Level{"error: ": slog.LevelError, "warning: ": slog.LevelWarn} {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			level, line = l, rest
		}
	}
	r := slog.NewRecord(time.Now(), level, line, 0)
	_ = s.f.baseHandler().Handle(context.Background(), r)
}

var _ io.Writer = (*stderrLines)(nil)
