package continuity

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrMissingTask stops prompt packaging when no task was named.
var ErrMissingTask = errors.New("continuity: no task given: name the task the receiving agent should look at (--task TEXT); no prompt emitted")

// needsInput marks a template field the user still has to fill.
const needsInput = "(needs user input: %s)"

// PromptOptions describe the task to delegate. Only Task is required; every
// other field has a default or is marked as needing user input.
type PromptOptions struct {
	Task        string   `json:"task"`
	Title       string   `json:"title,omitempty"`
	Context     []string `json:"context,omitempty"`
	Constraints []string `json:"constraints,omitempty"`
	Criteria    []string `json:"criteria,omitempty"`
	NonGoals    []string `json:"nonGoals,omitempty"`
	Validation  []string `json:"validation,omitempty"`
	// AllowPaths keeps filesystem paths the user explicitly asked for.
	AllowPaths bool `json:"allowPaths,omitempty"`
	// Clipboard, when set, receives the prompt; nil only builds it.
	Clipboard Clipboard `json:"-"`
}

// Prompt is a path-free delegation prompt and how it was delivered.
type Prompt struct {
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	Inference string   `json:"inference,omitempty"`
	Omitted   []string `json:"omitted,omitempty"`
	Rewritten []string `json:"rewritten,omitempty"`
	Copied    bool     `json:"copied"`
	Tool      string   `json:"tool,omitempty"`
	Notice    string   `json:"notice,omitempty"`
}

// Prompt builds the delegation prompt: review-and-assess first, then
// context, task, validation and output, with every filesystem path
// rewritten as a portable name or its line dropped (unless AllowPaths).
// With a Clipboard it copies the prompt; when no clipboard tool exists the
// Notice says so and the caller prints Text.
// It holds the repository's continuity lock, so calls from several
// processes never interleave.
func (s *Set) Prompt(opts PromptOptions) (Prompt, error) {
	return locked(s, func() (Prompt, error) { return s.prompt(opts) })
}

// prompt is Prompt without the lock.
func (s *Set) prompt(opts PromptOptions) (Prompt, error) {
	task := redactSecrets(oneLine(opts.Task))
	if task == "" {
		return Prompt{}, ErrMissingTask
	}
	p := Prompt{Title: redactSecrets(oneLine(opts.Title))}
	roots := s.topLevelNames()
	home, _ := os.UserHomeDir()
	if !opts.AllowPaths {
		// The task and title are never dropped: a path in them that cannot be
		// made portable refuses the whole prompt instead.
		var rw []string
		var err error
		if task, rw, err = portableField("task", task, roots, s.Root, home); err != nil {
			return Prompt{}, err
		}
		if p.Title != "" {
			var trw []string
			if p.Title, trw, err = portableField("title", p.Title, roots, s.Root, home); err != nil {
				return Prompt{}, err
			}
			rw = append(rw, trw...)
		}
		p.Rewritten = append(p.Rewritten, rw...)
	}
	if p.Title == "" {
		p.Title = titleOf(task)
	}
	var live *loaded
	if l := s.load(s.Dir()); l.dp != nil && l.notes != nil && l.graph != nil {
		live = &l
	}
	if len(strings.Fields(task)) < 4 && live != nil {
		p.Inference = "the short label was read against the live continuity record (goal and next action)"
	}
	var b strings.Builder
	add := func(line string) {
		line = redactSecrets(line)
		if !opts.AllowPaths {
			sc := scrubLine(line, roots, s.Root, home)
			if sc.dropped {
				p.Omitted = append(p.Omitted, sc.note())
				return
			}
			line = sc.line
			p.Rewritten = append(p.Rewritten, sc.rewritten...)
		}
		b.WriteString(line + "\n")
	}
	list := func(items []string, fallback string) {
		if len(items) == 0 {
			add("- " + fallback)
		}
		for _, it := range items {
			if it = oneLine(it); it != "" {
				add("- " + it)
			}
		}
	}
	add("I'd like to talk through, and maybe take on: " + p.Title)
	add("")
	add("Context:")
	add("- Repository: " + s.portableRepo())
	if p.Inference != "" {
		add("- The task was given as a short label (\"" + task + "\"); " + p.Inference + ". Confirm that reading before acting on it.")
	}
	if live != nil {
		add("- From the previous session's continuity record (unverified until you re-check it):")
		add("  - goal: " + live.dp.Goal)
		add("  - recorded next action: " + live.dp.NextAction)
		for _, bl := range live.dp.Blockers {
			add("  - open blocker: " + bl)
		}
		for _, d := range lastDecisions(live.notes.Records, 3) {
			add("  - decided: " + d)
		}
	}
	list(opts.Context, fmt.Sprintf(needsInput, "what triggered this task, and the relevant branch, issue or PR"))
	list(opts.Constraints, fmt.Sprintf(needsInput, "constraints and ownership boundaries"))
	add("")
	add("Review first, before changing anything:")
	add("- Locate the repository: the current directory, a parent of it, or your usual workspace.")
	add("- Read the agent and contributor instructions that repository carries.")
	add("- Re-check the live state yourself: code, docs, tests, recent commits, linked issues and PRs, and CI.")
	add("- This review is yours: decide whether the task is still real, stale, already solved, over-scoped, or better handled another way, and whether a smaller fix would do.")
	add("- Name any stale assumption, hidden risk, or reason to stop.")
	add("")
	add("Task:")
	add("- " + task)
	list(opts.Criteria, fmt.Sprintf(needsInput, "expected behaviour or decision criteria"))
	if len(opts.NonGoals) == 0 {
		add("- Non-goals: " + fmt.Sprintf(needsInput, "what is out of scope"))
	}
	for _, ng := range opts.NonGoals {
		add("- Non-goal: " + oneLine(ng))
	}
	add("")
	add("Validation:")
	list(opts.Validation, "Run the focused tests or checks that prove the change, and a live check where one applies.")
	add("- Include the exact commands you ran and what they printed as evidence.")
	add("- Anything beyond the task's own checks is not required.")
	add("")
	add("Output:")
	add("- Open with what the review found and what you recommend.")
	add("- Follow with the plan, or a summary of the patch.")
	add("- Keep any code change scoped to the task and report the exact proof you ran.")
	add("- Do not push, merge, close issues or PRs, label, or post comments anywhere unless explicitly asked.")
	p.Text = b.String()
	if opts.Clipboard != nil {
		tool, err := opts.Clipboard.Copy(p.Text)
		switch {
		case err == nil:
			p.Copied, p.Tool = true, tool
		case errors.Is(err, ErrNoClipboard):
			p.Notice = "clipboard copy unavailable: no pbcopy, wl-copy, xclip or clip.exe was found; the prompt is printed instead"
		default:
			p.Tool = tool
			p.Notice = fmt.Sprintf("clipboard copy failed (%v); the prompt is printed instead", err)
		}
	}
	return p, nil
}

// titleOf shortens a task to its first sentence, at most 90 bytes.
func titleOf(task string) string {
	for i := 1; i < len(task)-1; i++ {
		if strings.IndexByte(".!?", task[i]) >= 0 && task[i+1] == ' ' {
			task = task[:i]
			break
		}
	}
	if len(task) <= 90 {
		return task
	}
	cut := cutUTF8(task, 89)
	if i := strings.LastIndexByte(cut, ' '); i > 30 {
		cut = cut[:i]
	}
	return cut + "…"
}

// portableRepo names the repository without a filesystem path.
func (s *Set) portableRepo() string {
	if FindPaths(s.Identity, nil) == nil && !strings.HasPrefix(s.Identity, "/") {
		parts := strings.SplitN(s.Identity, "/", 2)
		if len(parts) == 2 && hostRE.MatchString(parts[0]) {
			return parts[1] + " on " + parts[0]
		}
		return s.Identity
	}
	return "a local checkout named " + portableName(s.Root) + " (no remote configured)"
}

func (s *Set) topLevelNames() []string {
	entries, err := os.ReadDir(s.Root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func lastDecisions(records []Record, n int) []string {
	var out []string
	for i := len(records) - 1; i >= 0 && len(out) < n; i-- {
		if r := records[i]; r.Kind == KindDecision {
			d := oneLine(r.Text)
			if r.Why != "" {
				d += " (why: " + r.Why + ")"
			}
			out = append([]string{capItem(d)}, out...)
		}
	}
	return out
}
