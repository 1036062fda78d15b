package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/the-loop/the-loop/agents/continuity"
	"github.com/the-loop/the-loop/service"
)

func continuityCmd() *Command {
	return &Command{Name: "continuity", Noun: "verb", Usage: "continuity <verb> [flags]",
		Summary: "keep the session continuity record; package briefs and delegation prompts",
		Sub: []*Command{contInitCmd(), contResumeCmd(), contUpdateCmd(), contEndCmd(), contStatusCmd(),
			contBriefCmd(), contPromptCmd()}}
}

// contOptions are the flags every continuity verb takes.
type contOptions struct {
	Repo   string
	Format string
}

func (o *contOptions) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", "", "repository directory (default: the current directory)")
	fs.StringVar(&o.Format, "format", "text", "output format: text or json")
}

// parse parses args (flags only) and returns the scope of the repository's
// continuity set, in the agent session the command runs in.
func (o *contOptions) parse(f *Factory, fs *flag.FlagSet, args []string) (service.ContinuityScope, error) {
	rest, err := f.parseFlags(fs, args)
	if err != nil {
		return service.ContinuityScope{}, err
	}
	if len(rest) > 0 {
		return service.ContinuityScope{}, usageErrorf("unexpected argument %q; every value is passed with a flag", rest[0])
	}
	if err := oneOf("format", o.Format, "text", "json"); err != nil {
		return service.ContinuityScope{}, err
	}
	dir := o.Repo
	if dir == "" {
		dir = f.Cwd
	}
	return service.ContinuityScope{Repo: f.path(dir), Harness: continuity.DetectHarness(f.Getenv)}, nil
}

// contCmd builds a continuity verb: the flags every verb takes, its own
// (bind, when it has some), then run with the scope of the repository's
// continuity set and the output format.
func contCmd(name, usage, summary string, bind func(fs *flag.FlagSet),
	run func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error) *Command {
	return &Command{Name: name, Usage: usage, Summary: summary,
		Run: func(ctx context.Context, f *Factory, args []string) error {
			var c contOptions
			fs := f.flagSet("continuity "+name, usage)
			c.bind(fs)
			if bind != nil {
				bind(fs)
			}
			scope, err := c.parse(f, fs, args)
			if err != nil {
				return err
			}
			return run(ctx, f, scope, c.Format)
		}}
}

// printStart prints a started or resumed set.
func printStart(f *Factory, format string, res service.ContinuityStartResult) error {
	if res.Ignore.Added {
		fmt.Fprintf(f.Stderr, "added /.handoff/ to the repository-local exclude (%s)\n", res.Ignore.Rule)
	}
	if res.Rejected != nil {
		fmt.Fprintln(f.Stderr, res.Rejected.Message())
	}
	return f.emit(format, res.Warnings, res, func(w io.Writer) {
		fmt.Fprintf(w, "%s: session %s (%s)\n", res.Mode, res.Session, res.Status)
		if res.Resumed != "" {
			fmt.Fprintf(w, "resumed from: %s\n", res.Resumed)
		}
		fmt.Fprintf(w, "goal: %s\nnext action: %s\ndeath point: %s\n", res.Goal, res.NextAction, res.DeathPoint)
	})
}

// printUpdate prints the set after an update or an end.
func printUpdate(f *Factory, format, what string, res service.ContinuityUpdateResult) error {
	return f.emit(format, res.Warnings, res, func(w io.Writer) {
		if res.Node != "" {
			what += fmt.Sprintf(" %s (%s)", res.Node, res.NodeStatus)
		}
		fmt.Fprintf(w, "%s; revision %d; status %s\nnext action: %s\n", what, res.Revision, res.Status, res.NextAction)
		for _, b := range res.Blockers {
			fmt.Fprintf(w, "blocker: %s\n", b)
		}
		fmt.Fprintf(w, "death point: %s\n", res.DeathPoint)
	})
}

// printStatus prints the live set.
func printStatus(w io.Writer, st service.ContinuityStatusResult) {
	state := st.State
	if st.Started != "" {
		state += " (" + st.Started + ")"
	}
	fmt.Fprintf(w, "status: %s\nrepository: %s\ndeath point: %s\n", state, st.Repository, st.DeathPoint)
	if st.Rejection != nil {
		fmt.Fprintln(w, st.Rejection.Message())
	}
	for _, kv := range [][2]string{{"session", st.Session}, {"goal", st.Goal}, {"phase", st.Phase}, {"updated", st.Updated},
		{"last completed", st.LastCompleted}, {"next action", st.NextAction}} {
		if kv[1] != "" {
			fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
		}
	}
	for _, b := range st.Blockers {
		fmt.Fprintf(w, "blocker: %s\n", b)
	}
	for _, t := range st.OpenTasks {
		fmt.Fprintf(w, "open task: %s\n", t)
	}
	for _, p := range st.Preserved {
		fmt.Fprintf(w, "kept rejected set: %s\n", p)
	}
}
