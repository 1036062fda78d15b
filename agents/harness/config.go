// Package harness launches agent sessions: it turns a harness's
// configuration and one assignment into a launch plan (argv, environment,
// prompt file, the CLI's per-session MCP configuration) for the session
// supervisor, and reads the usage figures, the final result and the errors
// each CLI reports in its machine output.
//
// Five adapters ship, one file each: "claude" (Claude Code), "codex"
// (OpenAI Codex CLI), "gemini" (Gemini CLI), "opencode" (opencode) and
// "command" (any other agent, from an argv template with placeholders).
// Every adapter gives its session one MCP server, the item's confined
// `the-loop serve`. Nothing runs through a shell, and the environment is an
// allow-list.
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
	AdapterClaude   = "claude"
	AdapterCodex    = "codex"
	AdapterGemini   = "gemini"
	AdapterOpencode = "opencode"
	AdapterCommand  = "command"
)

// Output formats of a harness's standard output: each CLI's own machine
// output, or text (nothing read).
const (
	OutputStreamJSON = "stream-json" // Claude Code's --output-format stream-json
	OutputCodexJSON  = "codex-json"  // codex exec --json
	OutputGeminiJSON = "gemini-json" // gemini -o stream-json
	OutputOpencode   = "opencode-json"
	OutputText       = "text"
)

// Outputs lists the formats a harness's output may be read as.
var Outputs = []string{OutputText, OutputStreamJSON, OutputCodexJSON, OutputGeminiJSON, OutputOpencode}

// DefaultPermissionMode is the claude adapter's --permission-mode when the
// config names none: edits are accepted; any other tool must be allowed.
const DefaultPermissionMode = "acceptEdits"

// ServerName is the MCP server name of the item's `the-loop serve`; its
// tools reach the model as mcp__the-loop__<tool> (Claude Code).
const ServerName = "the-loop"

// Config is one harness: how a session is launched. It is the value of
// one entry of the operator config's `harnesses:` map.
type Config struct {
	// Adapter is claude, codex, gemini, opencode or command.
	Adapter string `yaml:"adapter"`
	// Binary is the CLI's program (default: the adapter's, e.g. "codex");
	// the command adapter names its program in argv[0] instead.
	Binary string `yaml:"binary"`
	// Argv is the command adapter's argv template; see Placeholders.
	Argv []string `yaml:"argv"`
	// Model and Effort are used when the item's checklist chose none;
	// empty leaves the harness's own default.
	Model  string `yaml:"model"`
	Effort string `yaml:"effort"`
	// Models, when given, are the checklist's model choices this harness
	// takes; another choice is not passed to it (its model: applies).
	Models []string `yaml:"models"`
	// PermissionMode is the CLI's permission posture, in its own words
	// (claude: --permission-mode, default acceptEdits; codex: the sandbox,
	// default workspace-write; gemini: --approval-mode, default auto_edit;
	// opencode: acceptEdits or plan). A bypass of approvals is refused.
	PermissionMode string `yaml:"permissionMode"`
	// AllowedTools are tool rules run without asking, in the CLI's own
	// grammar (claude: --allowedTools; gemini: tools.allowed; opencode:
	// tool or tool(pattern) permissions). The item's MCP server is always
	// allowed.
	AllowedTools []string `yaml:"allowedTools"`
	// Output is what the command adapter's harness prints: text (default)
	// or one of the CLIs' machine outputs, read for usage figures.
	Output string `yaml:"output"`
	// Prices estimate the cost of a CLI that reports none, per model.
	Prices map[string]Price `yaml:"prices"`
	// Env names variables passed from the poller's environment beside
	// proc.Basics. A name that holds a secret is refused here.
	Env []string `yaml:"env"`
	// SecretEnv names variables passed on purpose although they hold
	// secrets (e.g. ANTHROPIC_API_KEY). Their values are redacted from
	// every record.
	SecretEnv []string `yaml:"secretEnv"`
}

// Program is the executable the harness runs.
func (c Config) Program() string {
	if c.Adapter == AdapterCommand {
		if len(c.Argv) > 0 {
			return c.Argv[0]
		}
		return ""
	}
	if c.Binary != "" {
		return c.Binary
	}
	if a := AdapterOf(c); a != nil {
		return a.Program()
	}
	return ""
}

// Format is the machine output the harness's sessions print.
func (c Config) Format() string {
	if a := AdapterOf(c); a != nil {
		return a.Format(c)
	}
	return OutputText
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
	if c.Adapter == "" {
		return fieldErr(key+".adapter", "missing; set adapter: %s", orList(AdapterNames()))
	}
	a, ok := adapterFor(c.Adapter)
	if !ok {
		return fieldErr(key+".adapter", "%q is not an adapter; use %s", c.Adapter, orList(AdapterNames()))
	}
	if err := a.Check(key, c); err != nil {
		return err
	}
	if c.Model != "" && !modelName.MatchString(c.Model) {
		return fieldErr(key+".model", "%q is not a model name (letters, digits and . _ : @ / [ ] -)", c.Model)
	}
	if c.Effort != "" && !effortName.MatchString(c.Effort) {
		return fieldErr(key+".effort", "%q is not an effort level (lower-case, e.g. high)", c.Effort)
	}
	for i, m := range c.Models {
		if !modelName.MatchString(m) {
			return fieldErr(fmt.Sprintf("%s.models[%d]", key, i), "%q is not a model name (letters, digits and . _ : @ / [ ] -)", m)
		}
	}
	if err := c.validatePrices(key); err != nil {
		return err
	}
	return c.validateEnv(key)
}

// checkCLI is what every adapter of a real CLI refuses: an argv template
// (the adapter builds its own) and an output it does not print.
func checkCLI(key string, c Config) error {
	a := AdapterOf(c)
	switch {
	case len(c.Argv) > 0:
		return fieldErr(key+".argv", "applies to the command adapter only; the %s adapter builds its own argv (remove argv, or set adapter: command)", c.Adapter)
	case c.Output != "" && c.Output != a.Format(c):
		return fieldErr(key+".output", "the %s adapter always reads %s; remove output", c.Adapter, a.Format(c))
	case c.Binary != "" && strings.TrimSpace(c.Binary) == "":
		return fieldErr(key+".binary", "is blank; name the %s program or leave binary out", c.Adapter)
	}
	return nil
}

// checkToolRules refuses allowedTools entries that are not one rule each.
func checkToolRules(key string, rules []string) error {
	for i, tool := range rules {
		if strings.TrimSpace(tool) == "" || strings.HasPrefix(tool, "-") || strings.ContainsAny(tool, "\n\r,\x00") {
			return fieldErr(fmt.Sprintf("%s.allowedTools[%d]", key, i), "%q is not a tool rule; give one rule per entry, e.g. Read or \"Bash(go test *)\"", tool)
		}
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
