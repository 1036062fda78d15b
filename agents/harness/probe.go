package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/proc"
)

// Status says whether one configured harness can run here.
type Status struct {
	Name    string `json:"name"`
	Adapter string `json:"adapter"`
	// Program is the configured program; Path the executable found ("" when
	// none was).
	Program string `json:"program"`
	Path    string `json:"path"`
	// Version is the first line `<program> --version` printed.
	Version string `json:"version"`
	// Help is the help invocation the flags were checked against ("" when
	// none is: the command adapter's argv is the operator's); Flags the
	// flags the adapter's argv uses; Mismatch what the help does not list.
	Help     string   `json:"help,omitempty"`
	Flags    []string `json:"flags,omitempty"`
	Mismatch []string `json:"mismatch,omitempty"`
	// Output is the machine output read; Cost says where cost comes from.
	Output string `json:"output"`
	Cost   string `json:"cost"`
	// Available reports that the program was found, its version probe
	// succeeded and its help lists every flag the adapter uses.
	Available   bool   `json:"available"`
	Unavailable string `json:"unavailable,omitempty"`
}

// ProbeOptions shape a probe.
type ProbeOptions struct {
	// Lookup reads the poller's environment (nil = os.LookupEnv); Sensitive
	// names its secret variables, as for a session.
	Lookup    func(string) (string, bool)
	Sensitive []string
	// Timeout bounds each probe command (0 = 2 minutes: a CLI on node can
	// take tens of seconds to start on a loaded machine).
	Timeout time.Duration
}

// Probe checks that harness name, configured as c, can run here: its
// program is found on the PATH its sessions get, `--version` answers, and
// (for a CLI adapter) the help of the subcommand it runs lists every flag
// the adapter's argv uses, with the values it passes among the choices the
// help names.
func Probe(ctx context.Context, name string, c Config, o ProbeOptions) Status {
	st := Status{Name: name, Adapter: c.Adapter, Program: c.Program(), Output: c.Format(), Cost: costSource(c)}
	if err := c.Validate("harnesses." + name); err != nil {
		st.Unavailable = "not runnable as configured: " + err.Error()
		return st
	}
	env, err := sessionEnv(c, Launch{SessionID: "probe", WorkItem: "probe", Node: "probe", Lookup: o.Lookup, Sensitive: o.Sensitive}, nil)
	if err != nil {
		st.Unavailable = "not runnable as configured: " + err.Error()
		return st
	}
	path, err := proc.LookPath(st.Program, env)
	var nf *proc.NotFoundError
	switch {
	case errors.As(err, &nf):
		st.Unavailable = fmt.Sprintf("%s is not on the sessions' PATH (%s); install it, or name it in harnesses.%s.%s", st.Program, nf.Path, name, programKey(c))
		return st
	case err != nil:
		st.Unavailable = fmt.Sprintf("%v; install it, or fix harnesses.%s.%s", err, name, programKey(c))
		return st
	}
	st.Path = path
	secrets := env.SecretValues()
	run := func(args ...string) (string, error) {
		timeout := o.Timeout
		if timeout <= 0 {
			timeout = 2 * time.Minute
		}
		res, err := proc.Run(ctx, proc.Command{Argv: append([]string{path}, args...), Dir: os.TempDir(), Env: env.List(),
			Timeout: timeout, Grace: time.Second, MaxOutput: 256 << 10})
		shown := strings.Join(append([]string{st.Program}, args...), " ")
		out := proc.RedactText(strings.ToValidUTF8(string(res.Stdout)+"\n"+string(res.Stderr), "\uFFFD"), secrets)
		switch {
		case res.TimedOut || errors.Is(err, proc.ErrTimeout):
			return "", fmt.Errorf("`%s` did not finish within %s", shown, timeout)
		case err != nil:
			return "", fmt.Errorf("`%s` could not run: %s", shown, proc.RedactText(err.Error(), secrets))
		case !res.Status.Success():
			return out, fmt.Errorf("`%s` ended with %s%s", shown, res.Status, lastLineOf(out))
		}
		return out, nil
	}
	version, err := run("--version")
	if err != nil {
		if c.Adapter == AdapterCommand { // its program need not answer --version
			st.Version, st.Available = "", true
			return st
		}
		st.Unavailable = "version probe " + err.Error()
		return st
	}
	st.Version = firstLineOf(version)
	a := AdapterOf(c)
	if a.Help() == nil {
		st.Available = true
		return st
	}
	flags, values, err := sampleFlags(name, c)
	if err != nil {
		st.Unavailable = "its argv could not be built: " + err.Error()
		return st
	}
	st.Flags = flags
	var help strings.Builder
	var shown []string
	for _, args := range a.Help() {
		out, err := run(args...)
		if err != nil {
			st.Unavailable = "help probe " + err.Error()
			return st
		}
		help.WriteString(out + "\n")
		shown = append(shown, strings.Join(append([]string{st.Program}, args...), " "))
	}
	st.Help = strings.Join(shown, "; ")
	st.Mismatch = mismatch(helpBlocks(help.String()), flags, values)
	if len(st.Mismatch) > 0 {
		st.Unavailable = fmt.Sprintf("`%s` does not list what the %s adapter passes: %s (the adapter was checked against %s; install that version, or set binary)",
			st.Help, c.Adapter, strings.Join(st.Mismatch, "; "), TestedVersions[c.Adapter])
		return st
	}
	st.Available = true
	return st
}

// TestedVersions are the CLI versions the adapters were checked against
// (testdata/e2e/agents pins the same ones).
var TestedVersions = map[string]string{
	AdapterClaude:   "Claude Code 2.1.332",
	AdapterCodex:    "codex-cli 0.171.0",
	AdapterGemini:   "Gemini CLI 0.61.0",
	AdapterOpencode: "opencode 1.18.33",
}

func programKey(c Config) string {
	if c.Adapter == AdapterCommand {
		return "argv[0]"
	}
	return "binary"
}

// costSource says where a harness's cost figures come from.
func costSource(c Config) string {
	switch {
	case c.ReportsCost():
		return "reported by " + c.Adapter
	case len(c.Prices) > 0:
		return "estimated from prices for " + strings.Join(sortedKeys(c.Prices), ", ")
	case c.Format() == OutputText:
		return "unknown: its output is text"
	}
	return "unknown: add prices for its models"
}

// sampleFlags builds the adapter's argv for a sample launch, in a process
// and in a terminal, and returns every flag it uses and the value passed
// after each flag that takes one.
func sampleFlags(name string, c Config) ([]string, map[string][]string, error) {
	dir, err := os.MkdirTemp("", "the-loop-probe-")
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// A linked worktree, as the poller's trees are, so the flags for its
	// git directory are built (and checked) too.
	gitdir := filepath.Join(dir, "gitdir")
	if err := os.MkdirAll(gitdir, 0o700); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o600); err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var flags []string
	values := map[string][]string{}
	for _, terminal := range []bool{false, true} {
		l := Launch{SessionID: "probe", WorkItem: "issue-1", Node: "probe", Prompt: "probe", Workdir: dir,
			Dir: filepath.Join(dir, fmt.Sprint("session-", terminal)), Serve: []string{"the-loop", "serve"},
			Model: c.Model, Effort: c.Effort, Terminal: terminal, Lookup: func(string) (string, bool) { return "", false }}
		c := c
		c.SecretEnv = nil // the probe needs no secret to build the argv
		p, err := Prepare(name, c, l)
		if err != nil {
			return nil, nil, err
		}
		for i := 1; i < len(p.Argv); i++ {
			a := p.Argv[i]
			if a == "--" {
				break
			}
			if a == "-" || !strings.HasPrefix(a, "-") || (i == p.promptArg && !strings.Contains(a, "=")) {
				continue // a value, standard input, or the prompt itself (--prompt=<text> is checked as --prompt)
			}
			f, _, _ := strings.Cut(a, "=")
			if !seen[f] {
				seen[f] = true
				flags = append(flags, f)
			}
			if v := p.Argv[min(i+1, len(p.Argv)-1)]; !strings.Contains(a, "=") && i+1 < len(p.Argv) && !strings.HasPrefix(v, "-") &&
				i+1 != p.promptArg && !contains(values[f], v) {
				values[f] = append(values[f], v)
			}
		}
	}
	return flags, values, nil
}

var (
	helpFlag    = regexp.MustCompile(`(?:^|[\s,])(--?[A-Za-z][A-Za-z0-9-]*)`)
	helpChoices = regexp.MustCompile(`(?:possible values|choices):\s*([^\]\)]*)`)
)

// helpBlocks splits help text into option blocks keyed by every flag
// spelling the block's first line names.
func helpBlocks(help string) map[string]string {
	blocks := map[string]string{}
	var names []string
	var text strings.Builder
	flush := func() {
		for _, n := range names {
			blocks[n] += text.String()
		}
		names, text = nil, strings.Builder{}
	}
	for _, line := range strings.Split(help, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "-") && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			flush()
			head, _, _ := strings.Cut(trimmed, "  ")
			head, _, _ = strings.Cut(head, " <")
			head, _, _ = strings.Cut(head, " [")
			for _, m := range helpFlag.FindAllStringSubmatch(head, -1) {
				names = append(names, m[1])
			}
		}
		text.WriteString(line + "\n")
	}
	flush()
	return blocks
}

// mismatch lists the flags the help does not name, and the values passed
// to a flag whose help names its choices that are not among them.
func mismatch(blocks map[string]string, flags []string, values map[string][]string) []string {
	var out []string
	for _, f := range flags {
		block, ok := blocks[f]
		if !ok {
			out = append(out, f+" is not listed")
			continue
		}
		m := helpChoices.FindStringSubmatch(block)
		if m == nil {
			continue
		}
		choices := map[string]bool{}
		for _, c := range strings.Split(m[1], ",") {
			choices[strings.Trim(strings.TrimSpace(c), `"'`)] = true
		}
		for _, v := range values[f] {
			if !choices[v] {
				out = append(out, fmt.Sprintf("%s %s is not among its choices (%s)", f, v, strings.TrimSpace(m[1])))
			}
		}
	}
	return out
}

func firstLineOf(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return clip(l, 200)
		}
	}
	return ""
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return ": " + clip(l, 200)
	}
	return ""
}
