package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/envvar"
	"github.com/the-loop/the-loop/internal/proc"
)

// Launch is one session to start: the assignment and where it runs.
type Launch struct {
	// SessionID, WorkItem and Node identify the session; they are set in
	// the child's environment (THE_LOOP_SESSION, THE_LOOP_WORK_ITEM,
	// THE_LOOP_NODE).
	SessionID string
	WorkItem  string
	Node      string
	// PR and PRRepo name the pull request whose loop Node belongs to (0:
	// the item's own loop); they are set as THE_LOOP_PR and
	// THE_LOOP_PR_REPO.
	PR     int
	PRRepo string
	// Prompt is the assignment text written to the prompt file.
	Prompt string
	// Model and Effort are the item's choice ("" = the harness config's
	// default, and when that is empty too, no flag at all).
	Model  string
	Effort string
	// Workdir is the item's working tree (or a pull request's own tree);
	// the session runs there.
	Workdir string
	// ServeRepo is the repository the session's the-loop server serves
	// the item in ("" = Workdir): a pull request's session of its own runs
	// in that pull request's tree, while its item lives in the item's.
	ServeRepo string
	// Dir is the session's private directory (created 0700): the prompt
	// file and the MCP config go there.
	Dir string
	// Serve is the argv that runs the-loop's MCP server, e.g.
	// ["/usr/local/bin/the-loop", "serve", "--config", "/etc/the-loop/config.yaml"];
	// "--repo <ServeRepo> --work-item <WorkItem>" is appended.
	Serve []string
	// ServeEnv is the server entry's environment in the MCP config. It is
	// readable by the session: never put a secret in it.
	ServeEnv map[string]string
	// Sensitive names variables the poller's config says hold secrets
	// (tracker tokens, the signing key); they never reach the session
	// unless the harness names them in secretEnv.
	Sensitive []string
	// Redact are further values scrubbed from the recorded argv (e.g.
	// proc.SecretValuesOf(os.Environ())).
	Redact []string
	// Lookup reads the poller's environment (nil = os.LookupEnv).
	Lookup func(string) (string, bool)
	// Terminal says the session runs in a terminal (the tmux runner), so
	// its stdin is not free for the prompt: the claude adapter then passes
	// the prompt as its argument instead (visible in the host's process
	// list, and limited to MaxArgPrompt bytes).
	Terminal bool
}

// MaxArgPrompt bounds a prompt passed as an argument (Linux refuses one
// argument over 128 KiB).
const MaxArgPrompt = 100 << 10

// Plan is a prepared session: exactly what to run.
type Plan struct {
	// Argv is executed directly in Dir with Env.
	Argv []string
	Env  []string
	Dir  string
	// StdinPath feeds the child's stdin ("" = nothing).
	StdinPath string
	// PromptFile and MCPConfig are the files written for the session.
	PromptFile string
	MCPConfig  string
	// Recorded is Argv with secrets redacted, for records and logs.
	Recorded []string
	// Output is what the harness prints: stream-json or text.
	Output string
	// Model and Effort are the values in effect ("" = the harness's own).
	Model  string
	Effort string
}

// Prepare writes the session's prompt file and MCP config into l.Dir and
// returns the plan for harness name configured by c.
func Prepare(name string, c Config, l Launch) (*Plan, error) {
	if err := c.Validate("harnesses." + name); err != nil {
		return nil, err
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	p := &Plan{Dir: l.Workdir, Model: firstNonEmpty(l.Model, c.Model), Effort: firstNonEmpty(l.Effort, c.Effort)}
	if p.Model != "" && !config.ValidModel(p.Model) {
		return nil, fmt.Errorf("model %q for %s is not a model name", p.Model, l.WorkItem)
	}
	if p.Effort != "" && !config.ValidEffort(p.Effort) {
		return nil, fmt.Errorf("effort %q for %s is not an effort level", p.Effort, l.WorkItem)
	}
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("session directory %s: %w", l.Dir, err)
	}
	p.PromptFile = filepath.Join(l.Dir, "prompt.md")
	if err := writePrivate(p.PromptFile, []byte(l.Prompt)); err != nil {
		return nil, err
	}
	cfg, err := MCPConfig(l.Serve, firstNonEmpty(l.ServeRepo, l.Workdir), l.WorkItem, l.ServeEnv)
	if err != nil {
		return nil, err
	}
	p.MCPConfig = filepath.Join(l.Dir, "mcp.json")
	if err := writePrivate(p.MCPConfig, cfg); err != nil {
		return nil, err
	}
	env, err := sessionEnv(c, l)
	if err != nil {
		return nil, fmt.Errorf("harnesses.%s: %w", name, err)
	}
	p.Env = env.List()
	switch c.Adapter {
	case AdapterClaude:
		p.Output = OutputStreamJSON
		if l.Terminal {
			if len(l.Prompt) > MaxArgPrompt {
				return nil, fmt.Errorf("launch %s: a %d-byte prompt is too long to pass in a terminal session (at most %d); use runner: process", l.WorkItem, len(l.Prompt), MaxArgPrompt)
			}
			p.Argv = claudeArgv(c, p, l.Prompt)
		} else {
			p.Argv, p.StdinPath = claudeArgv(c, p, ""), p.PromptFile
		}
	case AdapterCommand:
		p.Argv, p.Output = expand(c.Argv, p, l), firstNonEmpty(c.Output, OutputText)
	}
	p.Recorded = proc.Redact(p.Argv, append(env.SecretValues(), l.Redact...))
	if l.Terminal && c.Adapter == AdapterClaude {
		p.Recorded[2] = "<prompt: " + p.PromptFile + ">"
	}
	return p, nil
}

func (l Launch) check() error {
	switch {
	case l.SessionID == "" || l.WorkItem == "" || l.Node == "":
		return errors.New("launch: SessionID, WorkItem and Node are required")
	case !filepath.IsAbs(l.Workdir) || !filepath.IsAbs(l.Dir) || (l.ServeRepo != "" && !filepath.IsAbs(l.ServeRepo)):
		return fmt.Errorf("launch %s: Workdir, ServeRepo and Dir must be absolute paths", l.WorkItem)
	case len(l.Serve) == 0 || l.Serve[0] == "":
		return fmt.Errorf("launch %s: Serve must name the the-loop program", l.WorkItem)
	case strings.TrimSpace(l.Prompt) == "":
		return fmt.Errorf("launch %s: the prompt is empty", l.WorkItem)
	}
	return nil
}

// sessionEnv is the session's allow-listed environment.
func sessionEnv(c Config, l Launch) (*proc.Env, error) {
	lookup := l.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	set := map[string]string{
		"THE_LOOP_SESSION":   l.SessionID,
		"THE_LOOP_WORK_ITEM": l.WorkItem,
		"THE_LOOP_NODE":      l.Node,
	}
	if l.PR > 0 {
		set["THE_LOOP_PR"], set["THE_LOOP_PR_REPO"] = strconv.Itoa(l.PR), l.PRRepo
	}
	return proc.BuildEnv(proc.EnvSpec{
		Pass:      c.Env,
		Secrets:   c.SecretEnv,
		Sensitive: l.Sensitive,
		Set:       set,
	}, lookup)
}

// claudeArgv builds Claude Code's headless argv. The prompt goes on stdin,
// or, when prompt is given, right after -p: --mcp-config and
// --allowedTools take several values, so a prompt after them would be read
// as one more value.
func claudeArgv(c Config, p *Plan, prompt string) []string {
	argv := []string{firstNonEmpty(c.Binary, "claude"), "-p"}
	if prompt != "" {
		if strings.HasPrefix(prompt, "-") {
			prompt = "\n" + prompt // never read as an option
		}
		argv = append(argv, prompt)
	}
	argv = append(argv, "--output-format", OutputStreamJSON, "--verbose",
		"--mcp-config", p.MCPConfig, "--strict-mcp-config")
	if p.Model != "" {
		argv = append(argv, "--model", p.Model)
	}
	if p.Effort != "" {
		argv = append(argv, "--effort", p.Effort)
	}
	argv = append(argv, "--permission-mode", firstNonEmpty(c.PermissionMode, DefaultPermissionMode))
	argv = append(argv, "--allowedTools", "mcp__"+ServerName)
	return append(argv, c.AllowedTools...)
}

// expand fills the command adapter's template. An argument holding
// {model} or {effort} is left out when that value is empty, together with
// a bare flag just before it (so "--model", "{model}" disappears whole).
func expand(tmpl []string, p *Plan, l Launch) []string {
	values := map[string]string{
		"prompt_file": p.PromptFile, "mcp_config": p.MCPConfig, "model": p.Model,
		"effort": p.Effort, "workdir": l.Workdir, "work_item": l.WorkItem,
	}
	out := make([]string, 0, len(tmpl))
	prevKept := false // whether tmpl[i-1] is the last element of out
	for i, a := range tmpl {
		drop := false
		s := config.Placeholder.ReplaceAllStringFunc(a, func(m string) string {
			name := m[1 : len(m)-1]
			if (name == "model" || name == "effort") && values[name] == "" {
				drop = true
			}
			return values[name]
		})
		if drop {
			bare := a == "{model}" || a == "{effort}"
			if bare && prevKept && strings.HasPrefix(tmpl[i-1], "-") && !config.Placeholder.MatchString(tmpl[i-1]) {
				out = out[:len(out)-1]
			}
			prevKept = false
			continue
		}
		out = append(out, s)
		prevKept = true
	}
	return out
}

// MCPConfig returns the MCP configuration a session gets: one stdio
// server, `the-loop serve --repo <workdir> --work-item <item>`, named
// the-loop. Claude Code expands ${VAR} in these values, so none may hold
// one.
func MCPConfig(serve []string, workdir, item string, env map[string]string) ([]byte, error) {
	if len(serve) == 0 {
		return nil, errors.New("mcp config: no the-loop program to serve")
	}
	args := append(append([]string(nil), serve[1:]...), "--repo", workdir, "--work-item", item)
	for _, v := range append([]string{serve[0]}, args...) {
		if strings.Contains(v, "${") {
			return nil, fmt.Errorf("mcp config: %q would be expanded by the harness; use a path without ${", v)
		}
	}
	for k, v := range env {
		if strings.Contains(v, "${") || envvar.LooksSecret(k) {
			return nil, fmt.Errorf("mcp config: server variable %s is refused (a secret or a ${} expansion); the session can read this file", k)
		}
	}
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	}
	doc := map[string]map[string]server{"mcpServers": {ServerName: {Type: "stdio", Command: serve[0], Args: args, Env: env}}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func writePrivate(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
