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
	"github.com/the-loop/the-loop/internal/sessionenv"
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
	// Env are further variables set in the session's environment (and
	// its server's): a confined session's private HOME and TMPDIR, its
	// socket to the poller and its capability. They override what the
	// poller's environment would pass.
	Env map[string]string
	// Terminal says the session runs in a terminal (the tmux runner), so
	// its stdin is not free for the prompt: the adapters then pass the
	// prompt as an argument instead (visible in the host's process list,
	// and limited to MaxArgPrompt bytes).
	Terminal bool
}

// MaxArgPrompt bounds a prompt passed as an argument (Linux refuses one
// argument over 128 KiB).
const MaxArgPrompt = 100 << 10

// Plan is a prepared session: exactly what to run.
type Plan struct {
	// Adapter is the adapter that built the plan.
	Adapter string
	// Argv is executed directly in Dir with Env.
	Argv []string
	Env  []string
	Dir  string
	// StdinPath feeds the child's stdin ("" = nothing).
	StdinPath string
	// PromptFile is the prompt's file; MCPConfig the file naming the item's
	// server ("" when the CLI takes it in its argv or environment).
	PromptFile string
	MCPConfig  string
	// Server is the item's MCP server every adapter configures.
	Server Server
	// Files are the per-session files written for the CLI (the prompt
	// and its configuration), which the session must be able to read.
	Files []string
	// Recorded is Argv with secrets (and a prompt passed as an argument)
	// redacted, for records and logs.
	Recorded []string
	// Output is what the harness prints (Outputs), read by NewMeter.
	Output string
	// Model and Effort are the values in effect ("" = the harness's own).
	Model  string
	Effort string
	// Notes say what the CLI could not be given (an effort it has no
	// setting for, a checklist model the harness does not take).
	Notes []string
	// Home is what the CLI keeps under the session's HOME; Writable are
	// the directories of the session's own it must write besides its
	// working tree (a CLI home the adapter points it to).
	Home     Home
	Writable []string

	extraEnv  map[string]string
	promptArg int // index in Argv of a prompt passed as an argument (0 = none)
}

// setEnv adds a variable the CLI reads to the session's environment.
func (p *Plan) setEnv(name, value string) {
	if p.extraEnv == nil {
		p.extraEnv = map[string]string{}
	}
	p.extraEnv[name] = value
}

// promptAsArg appends the prompt to argv as the argument after flag ("" =
// a bare argument) when the session runs in a terminal; it refuses a prompt
// too long for one argument. It reports whether the prompt went there.
func (p *Plan) promptAsArg(l Launch, prefix string) (bool, error) {
	if !l.Terminal {
		p.StdinPath = p.PromptFile
		return false, nil
	}
	if len(l.Prompt) > MaxArgPrompt {
		return false, fmt.Errorf("launch %s: a %d-byte prompt is too long to pass in a terminal session (at most %d); use runner: process", l.WorkItem, len(l.Prompt), MaxArgPrompt)
	}
	prompt := l.Prompt
	if prefix == "" && strings.HasPrefix(prompt, "-") {
		prompt = "\n" + prompt // never read as an option
	}
	p.promptArg = len(p.Argv)
	p.Argv = append(p.Argv, prefix+prompt)
	return true, nil
}

// Prepare writes the session's prompt file and the CLI's per-session
// configuration into l.Dir and returns the plan for harness name
// configured by c.
func Prepare(name string, c Config, l Launch) (*Plan, error) {
	if err := c.Validate("harnesses." + name); err != nil {
		return nil, err
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	a := AdapterOf(c)
	p := &Plan{Adapter: a.Name(), Dir: l.Workdir, Output: c.Format(), Home: a.Home()}
	p.Model, p.Effort = EffectiveModel(c, l.Model), firstNonEmpty(l.Effort, c.Effort)
	if l.Model != "" && p.Model != l.Model {
		note := fmt.Sprintf("model %s is not passed: harness %s takes only %s", l.Model, name, orList(c.Models))
		if c.Model != "" {
			note += "; its model " + c.Model + " applies"
		}
		p.Notes = append(p.Notes, note)
	}
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
	p.Files = append(p.Files, p.PromptFile)
	srv, err := server(l.Serve, firstNonEmpty(l.ServeRepo, l.Workdir), l.WorkItem, l.ServeEnv)
	if err != nil {
		return nil, err
	}
	p.Server = srv
	if err := a.Build(c, p, l); err != nil {
		return nil, err
	}
	env, err := sessionEnv(c, l, p.extraEnv)
	if err != nil {
		return nil, fmt.Errorf("harnesses.%s: %w", name, err)
	}
	p.Env = env.List()
	p.Recorded = proc.Redact(p.Argv, append(env.SecretValues(), l.Redact...))
	if p.promptArg > 0 {
		p.Recorded[p.promptArg] = "<prompt: " + p.PromptFile + ">"
	}
	return p, nil
}

// writeFile writes one of the CLI's per-session files into the session's
// directory (0600) and lists it in p.Files.
func (p *Plan) writeFile(l Launch, name string, data []byte) (string, error) {
	path := filepath.Join(l.Dir, name)
	if err := writePrivate(path, data); err != nil {
		return "", err
	}
	p.Files = append(p.Files, path)
	return path, nil
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

// sessionEnv is the session's allow-listed environment, with the
// variables the CLI reads (extra).
func sessionEnv(c Config, l Launch, extra map[string]string) (*proc.Env, error) {
	lookup := l.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	set := map[string]string{
		sessionenv.ID:        l.SessionID,
		"THE_LOOP_WORK_ITEM": l.WorkItem,
		"THE_LOOP_NODE":      l.Node,
	}
	if l.PR > 0 {
		set["THE_LOOP_PR"], set["THE_LOOP_PR_REPO"] = strconv.Itoa(l.PR), l.PRRepo
	}
	for k, v := range extra {
		set[k] = v
	}
	for k, v := range l.Env {
		set[k] = v
	}
	return proc.BuildEnv(proc.EnvSpec{
		Pass:      c.Env,
		Secrets:   c.SecretEnv,
		Sensitive: l.Sensitive,
		Set:       set,
	}, lookup)
}

// Server is the item's MCP server: `the-loop serve … --repo <tree>
// --work-item <item>` over stdio, with its non-secret environment.
type Server struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// expansions are what some CLI would expand in a configuration value:
// Claude Code and Gemini CLI expand $VAR and ${VAR}, opencode {env:VAR}
// and {file:path}. A server value holding one is refused.
var expansions = []string{"$", "{env:", "{file:"}

// server builds the item's server entry. No value may hold an expansion a
// CLI would perform, and no variable may hold a secret: the session can
// read its configuration.
func server(serve []string, workdir, item string, env map[string]string) (Server, error) {
	if len(serve) == 0 {
		return Server{}, errors.New("mcp config: no the-loop program to serve")
	}
	args := append(append([]string(nil), serve[1:]...), "--repo", workdir, "--work-item", item)
	for _, v := range append([]string{serve[0]}, args...) {
		if hasExpansion(v) {
			return Server{}, fmt.Errorf("mcp config: %q would be expanded by the harness; use a path without $, {env: or {file: in it", v)
		}
	}
	for k, v := range env {
		if hasExpansion(v) || envvar.LooksSecret(k) {
			return Server{}, fmt.Errorf("mcp config: server variable %s is refused (a secret or an expansion); the session can read its configuration", k)
		}
	}
	return Server{Command: serve[0], Args: args, Env: env}, nil
}

func hasExpansion(v string) bool {
	for _, e := range expansions {
		if strings.Contains(v, e) {
			return true
		}
	}
	return false
}

// MCPConfig returns the MCP configuration file Claude Code (and a command
// harness's {mcp_config}) gets: one stdio server, `the-loop serve --repo
// <workdir> --work-item <item>`, named the-loop.
func MCPConfig(serve []string, workdir, item string, env map[string]string) ([]byte, error) {
	srv, err := server(serve, workdir, item, env)
	if err != nil {
		return nil, err
	}
	return srv.mcpJSON()
}

func (s Server) mcpJSON() ([]byte, error) {
	type entry struct {
		Type string `json:"type"`
		Server
	}
	doc := map[string]map[string]entry{"mcpServers": {ServerName: {Type: "stdio", Server: s}}}
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

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
