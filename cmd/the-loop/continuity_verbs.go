package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/the-loop/the-loop/agents/continuity"
	"github.com/the-loop/the-loop/service"
)

func contInitCmd() *Command {
	const usage = "continuity init --goal TEXT [--scope TEXT] [--why TEXT] [--next TEXT]"
	req := service.ContinuityInitRequest{}
	return contCmd("init", usage, "resume the live set, or start a fresh one for the goal",
		func(fs *flag.FlagSet) {
			fs.StringVar(&req.Goal, "goal", "", "the goal of the work (required)")
			fs.StringVar(&req.Scope, "scope", "", "what is in scope")
			fs.StringVar(&req.Rationale, "why", "", "the initial rationale")
			fs.StringVar(&req.Next, "next", "", "the first next action")
		},
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			if strings.TrimSpace(req.Goal) == "" {
				return usageErrorf("continuity init needs --goal TEXT: say what this work is for (use `continuity resume` to carry on without one)")
			}
			req.ContinuityScope = scope
			res, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityInit, req)
			if err != nil {
				return err
			}
			return printStart(f, format, res)
		})
}

func contResumeCmd() *Command {
	const usage = "continuity resume"
	return contCmd("resume", usage, "resume the live set, or start fresh from a rejected set's goal", nil,
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			res, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityResume, service.ContinuityResumeRequest{ContinuityScope: scope})
			if err != nil {
				return err
			}
			return printStart(f, format, res)
		})
}

func contUpdateCmd() *Command {
	const usage = "continuity update --kind decision|discovery|task|blocker|phase --text TEXT [--node ID --status open|done|blocked]"
	req := service.ContinuityUpdateRequest{}
	e := &req.Entry
	return contCmd("update", usage, "record one changed fact and flush the set",
		func(fs *flag.FlagSet) {
			fs.StringVar(&e.Kind, "kind", "", "decision, discovery, task, blocker or phase (required)")
			fs.StringVar(&e.Text, "text", "", "the changed fact")
			fs.StringVar(&e.Why, "why", "", "why it matters")
			fs.StringVar(&e.Node, "node", "", "task or blocker id to create or change")
			fs.StringVar(&e.Status, "status", "", "open, done or blocked (tasks and blockers)")
			fs.Var(stringsFlag{dst: &e.DependsOn, commas: true}, "depends", "ids this task depends on (comma-separated or repeated)")
			fs.StringVar(&e.Blocks, "blocks", "", "task id a new blocker holds up")
			fs.StringVar(&e.Resolves, "resolves", "", "blocker id this decision or task resolves")
			fs.Var(stringsFlag{dst: &e.Files, commas: true}, "files", "active files the fact concerns (comma-separated or repeated)")
			fs.StringVar(&e.Next, "next", "", "replace the recorded next action")
		},
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			if err := checkEntry(*e); err != nil {
				return err
			}
			req.ContinuityScope = scope
			res, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityUpdate, req)
			if err != nil {
				return err
			}
			return printUpdate(f, format, "recorded "+res.Kind, res)
		})
}

// checkEntry refuses an update that says nothing.
func checkEntry(e continuity.Entry) error {
	if e.Kind == "" {
		return usageErrorf("continuity update needs --kind: one of decision, discovery, task, blocker, phase")
	}
	if e.Status != "" {
		if err := oneOf("status", e.Status, "open", "done", "blocked"); err != nil {
			return err
		}
	}
	if strings.TrimSpace(e.Text) == "" && (e.Node == "" || e.Status == "") {
		return usageErrorf("continuity update needs --text TEXT (or --node ID with --status to change an existing task or blocker)")
	}
	return nil
}

func contEndCmd() *Command {
	var interrupted, completed bool
	const usage = "continuity end --interrupted|--completed [--next TEXT] [--result TEXT]"
	req := service.ContinuityEndRequest{}
	return contCmd("end", usage, "mark where the session ended",
		func(fs *flag.FlagSet) {
			fs.BoolVar(&interrupted, "interrupted", false, "the session stops before the goal is done")
			fs.BoolVar(&completed, "completed", false, "the goal is done")
			fs.StringVar(&req.Next, "next", "", "the exact next action")
			fs.StringVar(&req.Result, "result", "", "what was achieved, with --completed (default: completed)")
		},
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			switch {
			case interrupted == completed:
				return usageErrorf("continuity end needs exactly one of --interrupted or --completed")
			case interrupted && req.Result != "":
				return usageErrorf("continuity end --result applies only with --completed; record an interruption's state with --next TEXT")
			case interrupted:
				req.Kind = continuity.EndInterrupted
			default:
				req.Kind = continuity.EndCompleted
			}
			req.ContinuityScope = scope
			res, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityEnd, req)
			if err != nil {
				return err
			}
			return printUpdate(f, format, "marked "+res.Kind, res)
		})
}

func contStatusCmd() *Command {
	const usage = "continuity status"
	return contCmd("status", usage, "show the live set without writing", nil,
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			st, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityStatus, service.ContinuityStatusRequest{ContinuityScope: scope})
			if err != nil {
				return err
			}
			return f.emit(format, st.Warnings, st, func(w io.Writer) { printStatus(w, st) })
		})
}

func contBriefCmd() *Command {
	const usage = "continuity brief [--source HANDLE] [--out FILE] [--exclude LIST]"
	req := service.ContinuityBriefRequest{}
	return contCmd("brief", usage, "package a budgeted brief for a fresh session",
		func(fs *flag.FlagSet) {
			fs.StringVar(&req.Source, "source", "", "exact session handle to brief (default: the live set)")
			fs.StringVar(&req.Out, "out", "", "file name to write under .handoff/handoffs/ (default: stdout)")
			fs.Var(stringsFlag{dst: &req.Exclude, commas: true}, "exclude", "projects or paths that must not be packaged (comma-separated or repeated)")
			fs.IntVar(&req.Budget, "budget", continuity.BriefBudget, "byte budget, at most 6144")
		},
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			req.ContinuityScope = scope
			b, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityBrief, req)
			if err != nil {
				return err
			}
			return printBrief(f, format, b)
		})
}

// printBrief says on stderr what the brief holds and where it went, then
// prints it (or, written to a file, its path).
func printBrief(f *Factory, format string, b service.ContinuityBriefResult) error {
	if b.Receipt.Warning != "" {
		fmt.Fprintln(f.Stderr, "warning: "+b.Receipt.Warning)
	}
	if b.Receipt.Visibility != "" {
		fmt.Fprintln(f.Stderr, "note: "+b.Receipt.Visibility)
	}
	where := "stdout"
	if b.Path != "" {
		where = b.Path
	}
	fmt.Fprintf(f.Stderr, "brief: %d of %d bytes to %s; continuity status: %s (death point: %s)\n", b.Bytes, b.Budget, where, b.ContinuityStatus, b.DeathPoint)
	return f.emit(format, b.Warnings, b, func(w io.Writer) {
		if b.Path != "" {
			fmt.Fprintf(w, "wrote %s\n", b.Path)
			return
		}
		fmt.Fprint(w, b.Text)
	})
}

func contPromptCmd() *Command {
	var printIt bool
	const usage = "continuity prompt --task TEXT [--allow-paths]"
	req := service.ContinuityPromptRequest{}
	o := &req.PromptOptions
	return contCmd("prompt", usage, "build a path-free delegation prompt and copy it",
		func(fs *flag.FlagSet) {
			fs.StringVar(&o.Task, "task", "", "the task to delegate (required)")
			fs.StringVar(&o.Title, "title", "", "short task title (default: the task's first sentence)")
			fs.Var(stringsFlag{dst: &o.Context}, "context", "a context line (repeatable)")
			fs.Var(stringsFlag{dst: &o.Constraints}, "constraint", "a constraint or ownership boundary (repeatable)")
			fs.Var(stringsFlag{dst: &o.Criteria}, "criteria", "expected behaviour or decision criteria (repeatable)")
			fs.Var(stringsFlag{dst: &o.NonGoals}, "non-goal", "something out of scope (repeatable)")
			fs.Var(stringsFlag{dst: &o.Validation}, "validation", "a check the receiver should run (repeatable)")
			fs.BoolVar(&o.AllowPaths, "allow-paths", false, "keep filesystem paths (only when explicitly wanted)")
			fs.BoolVar(&printIt, "print", false, "also print the prompt after copying it")
		},
		func(ctx context.Context, f *Factory, scope service.ContinuityScope, format string) error {
			if strings.TrimSpace(o.Task) == "" {
				return usageErrorf("continuity prompt needs --task TEXT: name the task the receiving agent should review; no prompt emitted")
			}
			req.ContinuityScope = scope
			o.Clipboard = continuity.NewSystemClipboard(f.Getenv("PATH"), f.Getenv)
			p, err := call(ctx, f, ServiceOptions{}, (*service.Service).ContinuityPrompt, req)
			if err != nil {
				return err
			}
			return printPrompt(f, format, printIt, p)
		})
}

// printPrompt says on stderr what was rewritten or left out, then prints
// the prompt, or that it was copied.
func printPrompt(f *Factory, format string, printIt bool, p service.ContinuityPromptResult) error {
	for _, r := range p.Rewritten {
		fmt.Fprintln(f.Stderr, "rewrote a path as "+r)
	}
	for _, o := range p.Omitted {
		fmt.Fprintln(f.Stderr, "omitted: "+o)
	}
	if p.Notice != "" {
		fmt.Fprintln(f.Stderr, p.Notice)
	}
	return f.emit(format, p.Warnings, p, func(w io.Writer) {
		if !p.Copied {
			fmt.Fprint(w, p.Text)
			return
		}
		fmt.Fprintf(w, "copied to the clipboard (%s): %s\n", p.Tool, p.Title)
		if printIt {
			fmt.Fprint(w, p.Text)
		}
	})
}
