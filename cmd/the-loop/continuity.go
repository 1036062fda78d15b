package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/continuity"
	"github.com/the-loop/the-loop/service"
)

func init() {
	register(&Command{
		Name:    "continuity",
		Usage:   "continuity <init|resume|update|end|status|brief|prompt> [flags]",
		Summary: "keep the session continuity record; package briefs and delegation prompts",
		Run:     runContinuity,
	})
}

type contVerb struct {
	summary string
	run     func(f *Factory, args []string) error
}

var contVerbs = map[string]contVerb{
	"init":   {"resume the live set, or start a fresh one for the goal", contInit},
	"resume": {"resume the live set, or start fresh from a rejected set's goal", contResume},
	"update": {"record one changed fact and flush the set", contUpdate},
	"end":    {"mark where the session ended", contEnd},
	"status": {"show the live set without writing", contStatus},
	"brief":  {"package a budgeted brief for a fresh session", contBrief},
	"prompt": {"build a path-free delegation prompt and copy it", contPrompt},
}

// contUsage is each verb's synopsis (kept apart from contVerbs so the verb
// functions can read it without an initialization cycle).
var contUsage = map[string]string{
	"init":   "continuity init --goal TEXT [--scope TEXT] [--why TEXT] [--next TEXT]",
	"resume": "continuity resume",
	"update": "continuity update --kind decision|discovery|task|blocker|phase --text TEXT [--node ID --status open|done|blocked]",
	"end":    "continuity end --interrupted|--completed [--next TEXT] [--result TEXT]",
	"status": "continuity status",
	"brief":  "continuity brief [--source HANDLE] [--out FILE] [--exclude LIST]",
	"prompt": "continuity prompt --task TEXT [--allow-paths]",
}

func runContinuity(_ context.Context, f *Factory, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(f.Stderr, "usage: the-loop continuity <verb> [flags]")
		fmt.Fprintln(f.Stderr)
		names := make([]string, 0, len(contVerbs))
		for n := range contVerbs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(f.Stderr, "  %-8s %s\n", n, contVerbs[n].summary)
		}
		if len(args) == 0 {
			return usageErrorf("continuity needs a verb: init, resume, update, end, status, brief or prompt")
		}
		return nil
	}
	v, ok := contVerbs[args[0]]
	if !ok {
		return usageErrorf("unknown continuity verb %q: use init, resume, update, end, status, brief or prompt", args[0])
	}
	return v.run(f, args[1:])
}

// contCommon holds the flags every continuity verb takes.
type contCommon struct {
	fs     *flag.FlagSet
	repo   *string
	format *string
}

func contFlags(f *Factory, verb string) *contCommon {
	fs := flagSet(f, "continuity "+verb, contUsage[verb])
	return &contCommon{
		fs:     fs,
		repo:   fs.String("repo", "", "repository directory (default: the current directory)"),
		format: fs.String("format", "text", "output format: text or json"),
	}
}

// parse parses args and builds the core and the scope of the repository's
// continuity set; call the returned function when done.
func (c *contCommon) parse(f *Factory, args []string) (*service.Service, service.ContinuityScope, error) {
	var scope service.ContinuityScope
	rest, err := parseFlags(c.fs, args)
	if err != nil {
		return nil, scope, err
	}
	if len(rest) > 0 {
		return nil, scope, usageErrorf("unexpected argument %q; every value is passed with a flag", rest[0])
	}
	if err := oneOf("format", *c.format, "text", "json"); err != nil {
		return nil, scope, err
	}
	dir := *c.repo
	if dir == "" {
		dir = f.Cwd
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(f.Cwd, dir)
	}
	svc, err := f.Service(ServiceOptions{})
	if err != nil {
		return nil, scope, err
	}
	return svc, service.ContinuityScope{Repo: dir, Harness: continuity.DetectHarness(f.Getenv)}, nil
}

func (c *contCommon) json() bool { return *c.format == "json" }

// contJSON prints v as indented UTF-8 JSON on stdout.
func contJSON(f *Factory, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err := f.Stdout.Write(buf.Bytes())
	return err
}

// contList is a repeatable flag whose values may also be comma-separated.
type contList []string

func (l *contList) String() string { return strings.Join(*l, ",") }

func (l *contList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// contRepeat is a repeatable flag that keeps each value whole.
type contRepeat []string

func (l *contRepeat) String() string     { return strings.Join(*l, "; ") }
func (l *contRepeat) Set(v string) error { *l = append(*l, v); return nil }

func contInit(f *Factory, args []string) error {
	c := contFlags(f, "init")
	var opts continuity.InitOptions
	c.fs.StringVar(&opts.Goal, "goal", "", "the goal of the work (required)")
	c.fs.StringVar(&opts.Scope, "scope", "", "what is in scope")
	c.fs.StringVar(&opts.Rationale, "why", "", "the initial rationale")
	c.fs.StringVar(&opts.Next, "next", "", "the first next action")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(opts.Goal) == "" {
		return usageErrorf("continuity init needs --goal TEXT: say what this work is for (use `continuity resume` to carry on without one)")
	}
	defer svc.Close()
	res, err := svc.ContinuityInit(context.Background(), service.ContinuityInitRequest{ContinuityScope: scope, InitOptions: opts})
	if err != nil {
		return err
	}
	return printStart(f, c, res.StartResult)
}

func contResume(f *Factory, args []string) error {
	c := contFlags(f, "resume")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
	defer svc.Close()
	res, err := svc.ContinuityResume(context.Background(), service.ContinuityResumeRequest{ContinuityScope: scope})
	if err != nil {
		return err
	}
	return printStart(f, c, res.StartResult)
}

func printStart(f *Factory, c *contCommon, res continuity.StartResult) error {
	if res.Ignore.Added {
		fmt.Fprintf(f.Stderr, "added /.handoff/ to the repository-local exclude (%s)\n", res.Ignore.Rule)
	}
	if res.Rejected != nil {
		fmt.Fprintln(f.Stderr, res.Rejected.Message())
	}
	if c.json() {
		return contJSON(f, res)
	}
	w := f.Stdout
	fmt.Fprintf(w, "%s: session %s (%s)\n", res.Mode, res.Session, res.Status)
	if res.Resumed != "" {
		fmt.Fprintf(w, "resumed from: %s\n", res.Resumed)
	}
	fmt.Fprintf(w, "goal: %s\nnext action: %s\ndeath point: %s\n", res.Goal, res.NextAction, res.DeathPoint)
	return nil
}

func contUpdate(f *Factory, args []string) error {
	c := contFlags(f, "update")
	var e continuity.Entry
	var depends, files contList
	c.fs.StringVar(&e.Kind, "kind", "", "decision, discovery, task, blocker or phase (required)")
	c.fs.StringVar(&e.Text, "text", "", "the changed fact")
	c.fs.StringVar(&e.Why, "why", "", "why it matters")
	c.fs.StringVar(&e.Node, "node", "", "task or blocker id to create or change")
	c.fs.StringVar(&e.Status, "status", "", "open, done or blocked (tasks and blockers)")
	c.fs.Var(&depends, "depends", "ids this task depends on (comma-separated or repeated)")
	c.fs.StringVar(&e.Blocks, "blocks", "", "task id a new blocker holds up")
	c.fs.StringVar(&e.Resolves, "resolves", "", "blocker id this decision or task resolves")
	c.fs.Var(&files, "files", "active files the fact concerns (comma-separated or repeated)")
	c.fs.StringVar(&e.Next, "next", "", "replace the recorded next action")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
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
	e.DependsOn, e.Files = depends, files
	defer svc.Close()
	res, err := svc.ContinuityUpdate(context.Background(), service.ContinuityUpdateRequest{ContinuityScope: scope, Entry: e})
	if err != nil {
		return err
	}
	if c.json() {
		return contJSON(f, res)
	}
	printUpdate(f.Stdout, "recorded "+res.Kind, res.UpdateResult)
	return nil
}

func printUpdate(w io.Writer, what string, res continuity.UpdateResult) {
	if res.Node != "" {
		what += fmt.Sprintf(" %s (%s)", res.Node, res.NodeStatus)
	}
	fmt.Fprintf(w, "%s; revision %d; status %s\nnext action: %s\n", what, res.Revision, res.Status, res.NextAction)
	for _, b := range res.Blockers {
		fmt.Fprintf(w, "blocker: %s\n", b)
	}
	fmt.Fprintf(w, "death point: %s\n", res.DeathPoint)
}

func contEnd(f *Factory, args []string) error {
	c := contFlags(f, "end")
	interrupted := c.fs.Bool("interrupted", false, "the session stops before the goal is done")
	completed := c.fs.Bool("completed", false, "the goal is done")
	var opts continuity.EndOptions
	c.fs.StringVar(&opts.Next, "next", "", "the exact next action")
	c.fs.StringVar(&opts.Result, "result", "", "what was achieved, with --completed (default: completed)")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
	switch {
	case *interrupted == *completed:
		return usageErrorf("continuity end needs exactly one of --interrupted or --completed")
	case *interrupted && opts.Result != "":
		return usageErrorf("continuity end --result applies only with --completed; record an interruption's state with --next TEXT")
	case *interrupted:
		opts.Kind = continuity.EndInterrupted
	default:
		opts.Kind = continuity.EndCompleted
	}
	defer svc.Close()
	res, err := svc.ContinuityEnd(context.Background(), service.ContinuityEndRequest{ContinuityScope: scope, EndOptions: opts})
	if err != nil {
		return err
	}
	if c.json() {
		return contJSON(f, res)
	}
	printUpdate(f.Stdout, "marked "+res.Kind, res.UpdateResult)
	return nil
}

func contStatus(f *Factory, args []string) error {
	c := contFlags(f, "status")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
	defer svc.Close()
	st, err := svc.ContinuityStatus(context.Background(), service.ContinuityStatusRequest{ContinuityScope: scope})
	if err != nil {
		return err
	}
	if c.json() {
		return contJSON(f, st)
	}
	w := f.Stdout
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
	return nil
}

func contBrief(f *Factory, args []string) error {
	c := contFlags(f, "brief")
	var opts continuity.BriefOptions
	var exclude contList
	c.fs.StringVar(&opts.Source, "source", "", "exact session handle to brief (default: the live set)")
	c.fs.StringVar(&opts.Out, "out", "", "file name to write under .handoff/handoffs/ (default: stdout)")
	c.fs.Var(&exclude, "exclude", "projects or paths that must not be packaged (comma-separated or repeated)")
	c.fs.IntVar(&opts.Budget, "budget", continuity.BriefBudget, "byte budget, at most 6144")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
	opts.Exclude = exclude
	defer svc.Close()
	b, err := svc.ContinuityBrief(context.Background(), service.ContinuityBriefRequest{ContinuityScope: scope, BriefOptions: opts})
	if err != nil {
		return err
	}
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
	switch {
	case c.json():
		return contJSON(f, b)
	case b.Path != "":
		fmt.Fprintf(f.Stdout, "wrote %s\n", b.Path)
	default:
		fmt.Fprint(f.Stdout, b.Text)
	}
	return nil
}

func contPrompt(f *Factory, args []string) error {
	c := contFlags(f, "prompt")
	var opts continuity.PromptOptions
	var ctxs, constraints, criteria, nonGoals, validation contRepeat
	c.fs.StringVar(&opts.Task, "task", "", "the task to delegate (required)")
	c.fs.StringVar(&opts.Title, "title", "", "short task title (default: the task's first sentence)")
	c.fs.Var(&ctxs, "context", "a context line (repeatable)")
	c.fs.Var(&constraints, "constraint", "a constraint or ownership boundary (repeatable)")
	c.fs.Var(&criteria, "criteria", "expected behaviour or decision criteria (repeatable)")
	c.fs.Var(&nonGoals, "non-goal", "something out of scope (repeatable)")
	c.fs.Var(&validation, "validation", "a check the receiver should run (repeatable)")
	c.fs.BoolVar(&opts.AllowPaths, "allow-paths", false, "keep filesystem paths (only when explicitly wanted)")
	printIt := c.fs.Bool("print", false, "also print the prompt after copying it")
	svc, scope, err := c.parse(f, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(opts.Task) == "" {
		return usageErrorf("continuity prompt needs --task TEXT: name the task the receiving agent should review; no prompt emitted")
	}
	opts.Context, opts.Constraints, opts.Criteria, opts.NonGoals, opts.Validation = ctxs, constraints, criteria, nonGoals, validation
	opts.Clipboard = continuity.NewSystemClipboard(f.Getenv("PATH"), f.Getenv)
	defer svc.Close()
	p, err := svc.ContinuityPrompt(context.Background(), service.ContinuityPromptRequest{ContinuityScope: scope, PromptOptions: opts})
	if err != nil {
		return err
	}
	for _, r := range p.Rewritten {
		fmt.Fprintln(f.Stderr, "rewrote a path as "+r)
	}
	for _, o := range p.Omitted {
		fmt.Fprintln(f.Stderr, "omitted: "+o)
	}
	if p.Notice != "" {
		fmt.Fprintln(f.Stderr, p.Notice)
	}
	switch {
	case c.json():
		return contJSON(f, p)
	case p.Copied:
		fmt.Fprintf(f.Stdout, "copied to the clipboard (%s): %s\n", p.Tool, p.Title)
		if *printIt {
			fmt.Fprint(f.Stdout, p.Text)
		}
	default:
		fmt.Fprint(f.Stdout, p.Text)
	}
	return nil
}
