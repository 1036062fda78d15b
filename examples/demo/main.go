// Command demo runs the whole loop on this machine in well under a minute:
// a fake GitHub on a loopback port, a bare git remote and the poller's
// checkout of it, the repository's CI run on every head whose checks are read,
// `the-loop poll` launching a scripted fake harness for every agent node,
// and a script acting as the one human: it arms issue #1, signs the phase
// selection, asks for changes to the design once, approves at the gates and
// approves the pull request the implementation opened — after CI failed on
// it once and the loop sent it back to be fixed. It prints each step as it
// happens, and ends by checking a fresh clone of the item's branch the way
// a CI would. With `claude` on PATH, ANTHROPIC_API_KEY set and the the-loop
// plugin installed, -harness claude runs Claude Code instead.
//
//	go run ./examples/demo            # or examples/demo.sh
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/examples/demo/scenario"
)

func main() {
	harness := flag.String("harness", "fake", "fake (the scripted harness) or claude (Claude Code: needs claude on PATH, ANTHROPIC_API_KEY and the plugin)")
	keep := flag.Bool("keep", false, "keep the demo's directory (repositories, database, transcripts) for a look afterwards")
	timeout := flag.Duration("timeout", 3*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, printer{os.Stdout}, *harness, *keep, build); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// printer prints each step as it happens, after the time of day.
type printer struct{ w io.Writer }

func (p printer) step(format string, args ...any) {
	fmt.Fprintf(p.w, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// builder compiles a program of this module (a ./-relative package) into
// dir and returns its path.
type builder func(ctx context.Context, dir, pkg string) (string, error)

func run(ctx context.Context, p printer, harness string, keep bool, build builder) error {
	step := p.step
	start := time.Now()
	dir, err := os.MkdirTemp("", "the-loop-demo-")
	if err != nil {
		return err
	}
	if keep {
		defer step("everything is kept in %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	o := scenario.Options{Dir: dir}
	model := "opus-5"
	step("building the-loop and the fake harness")
	if o.TheLoop, err = build(ctx, dir, "./cmd/the-loop"); err != nil {
		return err
	}
	if o.FakeCritic, err = build(ctx, dir, "./agents/critic/fakecritic"); err != nil {
		return err
	}
	switch harness {
	case "fake":
		if o.FakeHarness, err = build(ctx, dir, "./agents/harness/fakeharness"); err != nil {
			return err
		}
	case "claude":
		if _, err := exec.LookPath("claude"); err != nil || os.Getenv("ANTHROPIC_API_KEY") == "" {
			return fmt.Errorf("-harness claude needs claude on PATH and ANTHROPIC_API_KEY set")
		}
		o.Harness = "    adapter: claude\n    secretEnv: [ANTHROPIC_API_KEY]\n    allowedTools: [Read, Edit, Write, \"Bash(git *)\"]\n"
		o.Env = map[string]string{"ANTHROPIC_API_KEY": os.Getenv("ANTHROPIC_API_KEY")}
		o.Models, model = []string{"sonnet", "opus"}, "sonnet"
	default:
		return fmt.Errorf("-harness %q is not fake or claude", harness)
	}
	l, err := scenario.New(ctx, o)
	if err != nil {
		return err
	}
	defer l.Close()
	step("fake GitHub at %s; remote %s; the poller's checkout %s", l.GitHub.URL(), l.Remote, l.Checkout)
	if err := l.Start(); err != nil {
		return err
	}
	step("the poller is running (the-loop poll, every second)")
	w := &watcher{l: l, step: step, seen: map[string]string{}}

	armed := time.Now()
	step("arm: %s comments `the-loop start` on octo/widgets#1", scenario.Human)
	l.Say(1, "Please pick this up.\n\nthe-loop start")
	if err := w.until(ctx, "the checklist", func() bool { _, ok := l.Posted(1, "<!-- the-loop:phase-selection -->"); return ok }); err != nil {
		return err
	}
	step("checklist: the loop posted the phase-selection checklist and waits; no session yet")
	step("execute: %s unticks brainstorming and the review chain, ticks model-%s, and signs with `the-loop execute`", scenario.Human, model)
	l.Say(1, "- [ ] brainstorming\n- [ ] review-chain\n- [x] model-"+model+"\n\nthe-loop execute")
	for _, gate := range []string{"requirements-approval", "design-approval", "pr-approval", "human-approval"} {
		switch gate {
		case "pr-approval":
			if err := fixAndApprovePullRequest(ctx, w, l); err != nil {
				return err
			}
			continue
		case "design-approval":
			if err := w.until(ctx, gate, requests(l, gate, 1)); err != nil {
				return err
			}
			step("approval: %s asks for a review on the ticket; %s asks for changes: `%s`", gate, scenario.Human, changeRequest)
			l.Say(1, changeRequest)
			if err := w.until(ctx, gate+" again", requests(l, gate, 2)); err != nil {
				return err
			}
			step("approval: %s asks again, its design now saying what an empty report exports; %s replies `Approved.`", gate, scenario.Human)
			l.Say(1, "Approved.")
			continue
		}
		if err := w.until(ctx, gate, requests(l, gate, 1)); err != nil {
			return err
		}
		step("approval: %s asks for a review on the ticket; %s replies `Approved.`", gate, scenario.Human)
		l.Say(1, "Approved.")
	}
	if err := w.until(ctx, "complete", func() bool { return l.Node("issue-1") == "complete" }); err != nil {
		return err
	}
	step("complete: issue-1 walked from arming to complete in %s (%s in all)", time.Since(armed).Round(time.Second), time.Since(start).Round(time.Second))
	_ = scenario.WaitFor(ctx, 30*time.Second, "the completed record on the remote", func() bool {
		out, err := exec.CommandContext(ctx, "git", "-C", l.Remote, "show", branch+":docs/specs/issue-1/work-item-state.json").Output()
		return err == nil && strings.Contains(string(out), `"currentNode": "complete"`)
	})
	log, _ := exec.CommandContext(ctx, "git", "-C", l.Remote, "log", "--format=  %h %s", branch).Output()
	step("the item's branch on the remote:\n%s", strings.TrimRight(string(log), "\n"))
	out, err := l.CheckClone(ctx, branch)
	if err != nil {
		return err
	}
	step("check: a fresh clone of %s passes `the-loop check --all --recompute --fail-on block` with no key but the committed public one: %s",
		branch, lastLine(out))
	return nil
}

// branch is the demo item's branch.
const branch = "the-loop/issue-1-seeded-ticket"

// changeRequest is what the human asks of the design.
const changeRequest = "Changes requested: say what the export of an empty report holds."

// requests reports whether gate has asked for a review on the ticket n
// times (once per visit).
func requests(l *scenario.Loop, gate string, n int) func() bool {
	marker := "<!-- the-loop:review-request " + gate + " -->"
	return func() bool {
		seen := 0
		for _, c := range l.Comments(1) {
			if c.Author == l.GitHub.BotLogin() && strings.Contains(c.Body, marker) {
				seen++
			}
		}
		return seen >= n
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// fixAndApprovePullRequest waits for the pull request the implementation
// asked for; the repository's CI fails on it once, and the loop sends it
// back to implementation with what CI said, which the next session's
// prompt quotes; once CI is green and its review request is posted, the
// human approves it with a review.
func fixAndApprovePullRequest(ctx context.Context, w *watcher, l *scenario.Loop) error {
	if err := w.until(ctx, "the pull request", func() bool { return l.PullRequest("issue-1") > 0 }); err != nil {
		return err
	}
	pr := l.PullRequest("issue-1")
	w.step("pull request: the poller opened %s#%d from the item's branch (the session asked for it); its loop runs while the implementation waits", scenario.Repo, pr)
	marker := "<!-- the-loop:review-request pr-approval -->"
	reviewAsked := func() bool { _, ok := l.Posted(pr, marker); return ok }
	if err := w.until(ctx, "CI's verdict", func() bool { return len(l.FixRounds("issue-1", pr)) > 0 || reviewAsked() }); err != nil {
		return err
	}
	if len(l.FixRounds("issue-1", pr)) == 0 { // an agent whose code CI passed at once (-harness claude)
		w.step("approval: CI is green and the briefing is on #%d; pr-approval asks for a review; %s approves the pull request", pr, scenario.Human)
		l.Approve(pr, "Looks right.")
		return nil
	}
	round := l.FixRounds("issue-1", pr)[0]
	checks, _ := round["checks"].([]any)
	for _, c := range checks {
		c, _ := c.(map[string]any)
		head, _ := c["head"].(string)
		anns, _ := c["annotations"].([]any)
		ann := map[string]any{}
		if len(anns) > 0 {
			ann, _ = anns[0].(map[string]any)
		}
		w.step("ci: check %v failed on %s of %s#%d: %v:%v %v (the repository's CI, %s, ran on the pull request's head)",
			c["name"], short(head), scenario.Repo, pr, ann["path"], ann["startLine"], ann["message"], scenario.CIScript)
	}
	w.step("fix: reviewer-briefing sent %s#%d back to implementation (CI fix round 1 of 3, no attempt spent); the next session's prompt quotes what CI said", scenario.Repo, pr)
	var fixer string
	if err := w.until(ctx, "the fix session", func() bool { fixer = w.promptWith("CI failed on pull request"); return fixer != "" }); err != nil {
		return err
	}
	prompt, _ := l.Prompt(fixer)
	w.step("fix: %s's prompt quotes the failing check's annotation (%s) and the last %s lines of its job's log, ending `%s`", fixer,
		between(prompt, "Annotations (1):\n  - ", " ("), between(prompt, "The end of the job's log (", " line(s)"), lastLogLine(prompt))
	if err := w.until(ctx, "pr-approval", reviewAsked); err != nil {
		return err
	}
	w.step("approval: the fix made CI green; the briefing is on #%d; pr-approval asks for a review; %s approves the pull request", pr, scenario.Human)
	l.Approve(pr, "Looks right.")
	return nil
}

// between is the text of s after the first from and before the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	out, _, _ := strings.Cut(rest, to)
	return out
}

// lastLogLine is the last line of the job log a prompt quotes.
func lastLogLine(prompt string) string {
	log := between(prompt, "The end of the job's log (", "\n```\n\n")
	if log == "" {
		log = between(prompt, "The end of the job's log (", "\n```\n")
	}
	lines := strings.Split(log, "\n")
	return lines[len(lines)-1]
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// watcher prints the sessions as they start and end while waiting.
type watcher struct {
	l    *scenario.Loop
	step func(format string, args ...any)
	seen map[string]string
	// listed is when the sessions were last listed: each list runs
	// `the-loop sessions list`, a process, so it runs every listEvery
	// while the cheap conditions are checked more often.
	listed time.Time
}

// listEvery is how often the watcher lists the sessions while it waits.
const listEvery = 500 * time.Millisecond

// promptWith is a session seen so far whose prompt holds text ("" when
// none).
func (w *watcher) promptWith(text string) string {
	for id := range w.seen {
		if p, err := w.l.Prompt(id); err == nil && strings.Contains(p, text) {
			return id
		}
	}
	return ""
}

// until waits for cond, printing the sessions that start and end
// meanwhile; once cond holds it lists them a last time, so what happened
// before it is printed before the step that follows.
func (w *watcher) until(ctx context.Context, what string, cond func() bool) error {
	return scenario.WaitFor(ctx, 10*time.Minute, what, func() bool {
		if time.Since(w.listed) >= listEvery {
			w.sessions(ctx)
		}
		if !cond() {
			return false
		}
		w.sessions(ctx)
		return true
	})
}

// sessions prints each session's start and end once; a session that
// started and ended between two lists is printed as started, then ended.
func (w *watcher) sessions(ctx context.Context) {
	w.listed = time.Now()
	out, err := w.l.Run(ctx, "sessions", "list", "--config", w.l.Config, "--format", "json")
	if err != nil {
		return
	}
	var res struct {
		Sessions []struct {
			ID, Node, State, ExitStatus, Model, PRRepo string
			PR                                         int
			Tokens                                     int64
			CostUSD                                    float64
		}
	}
	if json.Unmarshal([]byte(out), &res) != nil {
		return
	}
	for i := len(res.Sessions) - 1; i >= 0; i-- {
		s := res.Sessions[i]
		if w.seen[s.ID] == s.State {
			continue
		}
		if s.PR > 0 {
			s.Node = fmt.Sprintf("%s of %s#%d", s.Node, s.PRRepo, s.PR)
		}
		if _, seen := w.seen[s.ID]; !seen {
			w.step("session: %s started for %s (model %s)", s.ID, s.Node, s.Model)
		}
		if s.State != "running" {
			w.step("session: %s for %s ended: %s (%s), %d tokens, $%.2f", s.ID, s.Node, s.State, s.ExitStatus, s.Tokens, s.CostUSD)
		}
		w.seen[s.ID] = s.State
	}
}

// build compiles a program of this module into dir/bin.
func build(ctx context.Context, dir, pkg string) (string, error) {
	out := filepath.Join(dir, "bin", filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w (run the demo from the repository's root)", pkg, err)
	}
	return out, nil
}
