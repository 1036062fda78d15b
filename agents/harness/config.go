// Package harness launches agent sessions: it turns a harness's
// configuration and one assignment into a launch plan (argv, environment,
// prompt file, MCP config) for the session supervisor, and reads the usage
// figures a harness reports in its stream-json transcript.
//
// Two adapters ship. "claude" runs Claude Code headless (claude -p with
// stream-json output, the prompt on stdin, an MCP config whose only server
// is the item's `the-loop serve`). "command" runs any other agent from an
// argv template with placeholders. Nothing runs through a shell, and the
// environment is an allow-list.
package harness

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/internal/proc"
)

// Adapters.
const (
	AdapterClaude  = "claude"
	AdapterCommand = "command"
)

// Output formats of a harness's standard output.
const (
	OutputStreamJSON = "stream-json"
	OutputText       = "text"
)

// DefaultPermissionMode is the claude adapter's --permission-mode when the
// config names none: edits are accepted; any other tool must be allowed.
const DefaultPermissionMode = "acceptEdits"

// ServerName is the MCP server name of the item's `the-loop serve`; its
// tools reach the model as mcp__the-loop__<tool>.
const ServerName = "the-loop"

// Config is one harness: how a session is launched. It is the value of
// one entry of the operator config's `harnesses:` map.
type Config struct {
	// Adapter is claude or command.
	Adapter string `yaml:"adapter"`
	// Binary is the claude program (claude adapter; default "claude").
	Binary string `yaml:"binary"`
	// Argv is the command adapter's argv template; see Placeholders.
	Argv []string `yaml:"argv"`
	// Model and Effort are used when the item's checklist chose none;
	// empty leaves the harness's own default.
	Model  string `yaml:"model"`
	Effort string `yaml:"effort"`
	// PermissionMode is claude's --permission-mode (default acceptEdits).
	PermissionMode string `yaml:"permissionMode"`
	// AllowedTools are claude's --allowedTools entries; the item's MCP
	// server (mcp__the-loop) is always allowed.
	AllowedTools []string `yaml:"allowedTools"`
	// Output is what the command adapter's harness prints: text (default)
	// or stream-json (Claude's event shape, read for usage figures).
	Output string `yaml:"output"`
	// Env names variables passed from the poller's environment beside
	// proc.Basics. A name that holds a secret is refused here.
	Env []string `yaml:"env"`
	// SecretEnv names variables passed on purpose although they hold
	// secrets (e.g. ANTHROPIC_API_KEY). Their values are redacted from
	// every record.
	SecretEnv []string `yaml:"secretEnv"`
}

// Placeholders are the names the command adapter's argv template may use,
// each written in braces, e.g. {prompt_file}.
var Placeholders = []string{"prompt_file", "mcp_config", "model", "effort", "workdir", "work_item"}

// FieldError is a refused configuration value; Key is its dotted path
// (e.g. harnesses.claude.adapter) and Msg says what is wrong and the fix.
type FieldError struct {
	Key string
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

func fieldErr(key, format string, args ...any) error {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

var (
	harnessName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)
	modelName   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$`)
	effortName  = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	modeName    = regexp.MustCompile(`^[A-Za-z][A-Za-z-]{0,39}$`)
	placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)
)

// Validate checks every harness of a `harnesses:` map, in name order, and
// returns the first problem as a *FieldError.
func Validate(harnesses map[string]Config) error {
	names := make([]string, 0, len(harnesses))
	for n := range harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !harnessName.MatchString(n) {
			return fieldErr("harnesses."+n, "name it with lower-case letters, digits, '-' and '_' (at most 40), e.g. claude")
		}
		if err := harnesses[n].Validate("harnesses." + n); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks one harness; key is its path for messages.
func (c Config) Validate(key string) error {
	switch c.Adapter {
	case AdapterClaude:
		if len(c.Argv) > 0 {
			return fieldErr(key+".argv", "applies to the command adapter only; the claude adapter builds its own argv (remove argv, or set adapter: command)")
		}
		if c.Output != "" && c.Output != OutputStreamJSON {
			return fieldErr(key+".output", "the claude adapter always reads stream-json; remove output")
		}
		if c.PermissionMode != "" && !modeName.MatchString(c.PermissionMode) {
			return fieldErr(key+".permissionMode", "%q is not a permission mode; use one `claude --help` lists, e.g. acceptEdits", c.PermissionMode)
		}
		for i, tool := range c.AllowedTools {
			if strings.TrimSpace(tool) == "" || strings.HasPrefix(tool, "-") || strings.ContainsAny(tool, "\n\r,") {
				return fieldErr(fmt.Sprintf("%s.allowedTools[%d]", key, i), "%q is not a tool rule; give one rule per entry, e.g. Read or \"Bash(go test *)\"", tool)
			}
		}
	case AdapterCommand:
		if err := c.validateCommand(key); err != nil {
			return err
		}
	case "":
		return fieldErr(key+".adapter", "missing; set adapter: claude or adapter: command")
	default:
		return fieldErr(key+".adapter", "%q is not an adapter; use claude or command", c.Adapter)
	}
	if c.Model != "" && !modelName.MatchString(c.Model) {
		return fieldErr(key+".model", "%q is not a model name (letters, digits and . _ : @ / [ ] -)", c.Model)
	}
	if c.Effort != "" && !effortName.MatchString(c.Effort) {
		return fieldErr(key+".effort", "%q is not an effort level (lower-case, e.g. high)", c.Effort)
	}
	return c.validateEnv(key)
}

func (c Config) validateCommand(key string) error {
	switch {
	case c.Binary != "":
		return fieldErr(key+".binary", "applies to the claude adapter only; put the program in argv[0]")
	case c.PermissionMode != "":
		return fieldErr(key+".permissionMode", "applies to the claude adapter only; pass your harness's own flag in argv")
	case len(c.AllowedTools) > 0:
		return fieldErr(key+".allowedTools", "applies to the claude adapter only; pass your harness's own flag in argv")
	case len(c.Argv) == 0 || strings.TrimSpace(c.Argv[0]) == "":
		return fieldErr(key+".argv", "missing; give the program and its arguments, e.g. [my-agent, --prompt-file, \"{prompt_file}\"]")
	case c.Output != "" && c.Output != OutputText && c.Output != OutputStreamJSON:
		return fieldErr(key+".output", "%q is not one of text, stream-json", c.Output)
	}
	if placeholder.MatchString(c.Argv[0]) {
		return fieldErr(key+".argv[0]", "the program must be fixed; placeholders belong in the arguments")
	}
	prompt := false
	for i, a := range c.Argv {
		for _, m := range placeholder.FindAllStringSubmatch(a, -1) {
			if !isPlaceholder(m[1]) {
				return fieldErr(fmt.Sprintf("%s.argv[%d]", key, i), "unknown placeholder {%s}; use %s", m[1], placeholderList())
			}
			prompt = prompt || m[1] == "prompt_file"
		}
	}
	if !prompt {
		return fieldErr(key+".argv", "never names {prompt_file}, so the session would not get its assignment; add it where your harness reads a prompt file")
	}
	return nil
}

func (c Config) validateEnv(key string) error {
	for i, n := range c.Env {
		k := fmt.Sprintf("%s.env[%d]", key, i)
		if _, err := proc.BuildEnv(proc.EnvSpec{NoBasics: true, Pass: []string{n}}, noEnv); err != nil {
			if proc.LooksSecret(n) {
				return fieldErr(k, "%s holds a secret, so a session never gets it from env; list it under %s.secretEnv if the session must have it", n, key)
			}
			return fieldErr(k, "%v", err)
		}
	}
	for i, n := range c.SecretEnv {
		if _, err := proc.BuildEnv(proc.EnvSpec{NoBasics: true, Secrets: []string{n}}, noEnv); err != nil {
			return fieldErr(fmt.Sprintf("%s.secretEnv[%d]", key, i), "%v", err)
		}
	}
	return nil
}

func noEnv(string) (string, bool) { return "", false }

func isPlaceholder(name string) bool {
	for _, p := range Placeholders {
		if p == name {
			return true
		}
	}
	return false
}

func placeholderList() string {
	out := make([]string, len(Placeholders))
	for i, p := range Placeholders {
		out[i] = "{" + p + "}"
	}
	return strings.Join(out, ", ")
}
