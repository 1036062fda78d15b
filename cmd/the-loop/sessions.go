package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/the-loop/the-loop/service"
)

func sessionsCmd() *Command {
	return &Command{Name: "sessions", Noun: "verb", Usage: "sessions <verb> ...",
		Summary: "the agent sessions the loop launched: list them, show one, read its output, stop it to take the work over",
		Sub:     []*Command{sessionsListCmd(), sessionsShowCmd(), sessionsLogsCmd(), sessionsStopCmd()}}
}

// sessionsListOptions are the flags of `the-loop sessions list`.
type sessionsListOptions struct {
	service.SessionsRequest
	DB, Format string
}

func sessionsListCmd() *Command {
	const usage = "sessions list [--repo DIR] [--work-item ID] [--state STATE] [--limit N] [--format table|json]"
	return &Command{Name: "list", Usage: usage, Summary: "the recorded sessions, newest first",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &sessionsListOptions{}
			fs := f.flagSet("sessions list", usage)
			fs.StringVar(&opts.Repo, "repo", "", "only the sessions of this repository (an item's working tree); default every one")
			fs.StringVar(&opts.WorkItem, "work-item", "", "only this item's sessions")
			fs.StringVar(&opts.State, "state", "", "only this state: running, exited, stopped, timed_out, over_budget, lost")
			fs.IntVar(&opts.Limit, "limit", 50, "at most this many")
			fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
			fs.StringVar(&opts.Format, "format", "table", "table or json")
			if pos, err := f.parseFlags(fs, args); err != nil {
				return err
			} else if len(pos) > 0 {
				return usageErrorf("sessions list takes no arguments, got %q", strings.Join(pos, " "))
			}
			if opts.Repo != "" {
				opts.Repo = f.realPath(opts.Repo)
			}
			if err := oneOf("format", opts.Format, "table", "json"); err != nil {
				return err
			}
			return runSessionsList(ctx, f, opts)
		}}
}

func runSessionsList(ctx context.Context, f *Factory, opts *sessionsListOptions) error {
	res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).Sessions, opts.SessionsRequest)
	if err != nil {
		return err
	}
	return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
		if len(res.Sessions) == 0 {
			fmt.Fprintln(w, "no sessions recorded")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tITEM\tNODE\tHARNESS\tSTATE\tATTEMPT\tSTARTED\tTURNS\tTOKENS\tCOST\tCONFINED")
		for _, s := range res.Sessions {
			state := s.State
			if s.ExitStatus != "" {
				state += " (" + s.ExitStatus + ")"
			}
			confined := s.Confinement
			if confined == "" {
				confined = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s\n", s.ID, s.WorkItem, s.Node, s.Harness, state, s.Attempt,
				s.StartedAt.UTC().Format(time.DateTime), s.Turns, s.Tokens, s.CostText(), confined)
		}
		_ = tw.Flush()
		fmt.Fprintln(w, "by harness:")
		for _, h := range res.ByHarness {
			fmt.Fprintln(w, "  "+h.Text())
		}
	})
}

// sessionOptions are the flags of the verbs on one session.
type sessionOptions struct {
	DB, Format string
}

func (o *sessionOptions) bind(f *Factory, name, usage string) *flag.FlagSet {
	fs := f.flagSet(name, usage)
	fs.StringVar(&o.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
	fs.StringVar(&o.Format, "format", "table", "table or json")
	return fs
}

// oneSession parses the one positional session id.
func oneSession(f *Factory, fs *flag.FlagSet, args []string, usage string, format string) (string, error) {
	pos, err := f.parseFlags(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usageErrorf("usage: the-loop %s", usage)
	}
	return pos[0], oneOf("format", format, "table", "json")
}

func sessionsShowCmd() *Command {
	const usage = "sessions show <session> [--format table|json]"
	return &Command{Name: "show", Usage: usage, Summary: "one session's record: its item and node, argv, state, figures, transcript and how to take it over",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &sessionOptions{}
			fs := opts.bind(f, "sessions show", usage)
			id, err := oneSession(f, fs, args, usage, opts.Format)
			if err != nil {
				return err
			}
			res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).SessionShow, service.SessionRequest{Session: id})
			if err != nil {
				return err
			}
			return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) { printSession(w, res.Session) })
		}}
}

func printSession(w io.Writer, s service.SessionView) {
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-12s %s\n", k+":", v)
		}
	}
	line("session", s.ID)
	line("work item", s.WorkItem+" in "+s.Repo)
	line("node", s.Node)
	line("harness", s.Harness+" ("+s.Runner+" runner)")
	line("model", s.Model)
	line("effort", s.Effort)
	line("argv", strings.Join(s.Argv, " "))
	line("state", s.State)
	line("reason", s.Reason)
	line("exit", s.ExitStatus)
	line("attempt", fmt.Sprint(s.Attempt))
	line("pid", fmt.Sprint(s.PID))
	line("started", s.StartedAt.UTC().Format(time.RFC3339))
	if !s.EndedAt.IsZero() {
		line("ended", s.EndedAt.UTC().Format(time.RFC3339))
	}
	line("spent", fmt.Sprintf("%d turns, %d tokens (%d input, %d output), %s", s.Turns, s.Tokens, s.InputTokens, s.OutputTokens, s.CostText()))
	line("result", s.Result)
	line("error", s.Error)
	line("transcript", s.Transcript)
	if s.TranscriptCut > 0 {
		line("transcript cut", fmt.Sprintf("its first %d bytes were cut to hold it to sessions.maxTranscriptBytes; the tail is kept", s.TranscriptCut))
	}
	confinement := s.Confinement
	if note := service.ConfinementNote(s.Confinement); note != "" {
		confinement += " — " + note
	}
	line("confinement", confinement)
	line("resume", resumeHint(s))
	line("attach", s.Attach)
}

// resumeHint says how to continue the conversation by hand.
func resumeHint(s service.SessionView) string {
	if s.Resume == "" {
		return ""
	}
	return fmt.Sprintf("cd %s && %s (the harness's session %s)", s.Repo, s.Resume, s.HarnessSession)
}

// sessionsLogsOptions are the flags of `the-loop sessions logs`.
type sessionsLogsOptions struct {
	sessionOptions
	Lines  int
	Stderr bool
}

func sessionsLogsCmd() *Command {
	const usage = "sessions logs <session> [--lines N] [--stderr] [--format table|json]"
	return &Command{Name: "logs", Usage: usage, Summary: "the end of a session's transcript (the harness's stream-json), or of its stderr",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &sessionsLogsOptions{}
			fs := opts.bind(f, "sessions logs", usage)
			fs.IntVar(&opts.Lines, "lines", 100, "how many of the last lines")
			fs.BoolVar(&opts.Stderr, "stderr", false, "read the harness's error output instead of its transcript")
			id, err := oneSession(f, fs, args, usage, opts.Format)
			if err != nil {
				return err
			}
			req := service.SessionLogsRequest{Session: id, Lines: opts.Lines, Stderr: opts.Stderr}
			res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).SessionLogs, req)
			if err != nil {
				return err
			}
			return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) {
				for _, l := range res.Lines {
					fmt.Fprintln(w, l)
				}
			})
		}}
}

// sessionsStopOptions are the flags of `the-loop sessions stop`.
type sessionsStopOptions struct {
	sessionOptions
	Reason, Actor string
}

func sessionsStopCmd() *Command {
	const usage = "sessions stop <session> --reason TEXT [--actor NAME] [--format table|json]"
	return &Command{Name: "stop", Usage: usage,
		Summary: "stop a running session and hold its item on its node, so a human can take the work over",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &sessionsStopOptions{}
			fs := opts.bind(f, "sessions stop", usage)
			fs.StringVar(&opts.Reason, "reason", "", "why (required; recorded with the stop)")
			fs.StringVar(&opts.Actor, "actor", "", "who stops it (the hold names them)")
			id, err := oneSession(f, fs, args, usage, opts.Format)
			if err != nil {
				return err
			}
			req := service.SessionStopRequest{Session: id, Reason: opts.Reason, Actor: opts.Actor}
			res, err := call(ctx, f, ServiceOptions{DB: opts.DB}, (*service.Service).SessionStop, req)
			if err != nil {
				return err
			}
			return f.emit(opts.Format, res.Warnings, res, func(w io.Writer) { fmt.Fprintln(w, res.Message) })
		}}
}

// realPath makes p absolute against the working directory and resolves
// symbolic links, as the repository keys in the store are.
func (f *Factory) realPath(p string) string {
	p = f.path(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
