package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/internal/envvar"
)

// Adapters a harness names.
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

// Harness is one harness: how a session is launched. It is the value of
// one entry of the `harnesses:` map; package harness (agents/harness)
// turns it into a launch plan.
type Harness struct {
	// Adapter is claude or command.
	Adapter string `yaml:"adapter"`
	// Binary is the claude program (claude adapter; default "claude").
	Binary string `yaml:"binary"`
	// Argv is the command adapter's argv template; see HarnessPlaceholders.
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

// HarnessPlaceholders are the names the command adapter's argv template
// may use, each written in braces, e.g. {prompt_file}.
var HarnessPlaceholders = []string{"prompt_file", "mcp_config", "model", "effort", "workdir", "work_item"}

var (
	harnessName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)
	modelName   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$`)
	effortName  = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	modeName    = regexp.MustCompile(`^[A-Za-z][A-Za-z-]{0,39}$`)
)

// Placeholder matches one {name} placeholder of an argv template (a
// harness's argv, a critic's command), the name as its first group. Braces
// that are not a placeholder (a JSON argument) do not match.
var Placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ValidModel reports whether s has a model name's shape: the config's, or
// the one a work item's checklist chose.
func ValidModel(s string) bool { return modelName.MatchString(s) }

// ValidEffort reports whether s has an effort level's shape.
func ValidEffort(s string) bool { return effortName.MatchString(s) }

// ValidateHarnesses checks every harness of a `harnesses:` map, in name
// order, and returns the first problem as a *FieldError.
func ValidateHarnesses(harnesses map[string]Harness) error {
	names := make([]string, 0, len(harnesses))
	for n := range harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !harnessName.MatchString(n) {
			return badKey("harnesses."+n, "name it with lower-case letters, digits, '-' and '_' (at most 40), e.g. claude")
		}
		if err := harnesses[n].Validate("harnesses." + n); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks one harness; key is its path for messages.
func (c Harness) Validate(key string) error {
	switch c.Adapter {
	case AdapterClaude:
		if len(c.Argv) > 0 {
			return badKey(key+".argv", "applies to the command adapter only; the claude adapter builds its own argv (remove argv, or set adapter: command)")
		}
		if c.Output != "" && c.Output != OutputStreamJSON {
			return badKey(key+".output", "the claude adapter always reads stream-json; remove output")
		}
		if c.PermissionMode != "" && !modeName.MatchString(c.PermissionMode) {
			return badKey(key+".permissionMode", "%q is not a permission mode; use one `claude --help` lists, e.g. acceptEdits", c.PermissionMode)
		}
		for i, tool := range c.AllowedTools {
			if strings.TrimSpace(tool) == "" || strings.HasPrefix(tool, "-") || strings.ContainsAny(tool, "\n\r,") {
				return badKey(fmt.Sprintf("%s.allowedTools[%d]", key, i), "%q is not a tool rule; give one rule per entry, e.g. Read or \"Bash(go test *)\"", tool)
			}
		}
	case AdapterCommand:
		if err := c.validateCommand(key); err != nil {
			return err
		}
	case "":
		return badKey(key+".adapter", "missing; set adapter: claude or adapter: command")
	default:
		return badKey(key+".adapter", "%q is not an adapter; use claude or command", c.Adapter)
	}
	if c.Model != "" && !ValidModel(c.Model) {
		return badKey(key+".model", "%q is not a model name (letters, digits and . _ : @ / [ ] -)", c.Model)
	}
	if c.Effort != "" && !ValidEffort(c.Effort) {
		return badKey(key+".effort", "%q is not an effort level (lower-case, e.g. high)", c.Effort)
	}
	return c.validateEnv(key)
}

func (c Harness) validateCommand(key string) error {
	switch {
	case c.Binary != "":
		return badKey(key+".binary", "applies to the claude adapter only; put the program in argv[0]")
	case c.PermissionMode != "":
		return badKey(key+".permissionMode", "applies to the claude adapter only; pass your harness's own flag in argv")
	case len(c.AllowedTools) > 0:
		return badKey(key+".allowedTools", "applies to the claude adapter only; pass your harness's own flag in argv")
	case len(c.Argv) == 0 || strings.TrimSpace(c.Argv[0]) == "":
		return badKey(key+".argv", "missing; give the program and its arguments, e.g. [my-agent, --prompt-file, \"{prompt_file}\"]")
	case c.Output != "" && c.Output != OutputText && c.Output != OutputStreamJSON:
		return badKey(key+".output", "%q is not one of text, stream-json", c.Output)
	}
	if Placeholder.MatchString(c.Argv[0]) {
		return badKey(key+".argv[0]", "the program must be fixed; placeholders belong in the arguments")
	}
	prompt := false
	for i, a := range c.Argv {
		for _, m := range Placeholder.FindAllStringSubmatch(a, -1) {
			if !isPlaceholder(m[1]) {
				return badKey(fmt.Sprintf("%s.argv[%d]", key, i), "unknown placeholder {%s}; use %s", m[1], placeholderList())
			}
			prompt = prompt || m[1] == "prompt_file"
		}
	}
	if !prompt {
		return badKey(key+".argv", "never names {prompt_file}, so the session would not get its assignment; add it where your harness reads a prompt file")
	}
	return nil
}

func (c Harness) validateEnv(key string) error {
	for i, n := range c.Env {
		k := fmt.Sprintf("%s.env[%d]", key, i)
		if envvar.LooksSecret(n) {
			return badKey(k, "%s holds a secret, so a session never gets it from env; list it under %s.secretEnv if the session must have it", n, key)
		}
		if !envvar.Valid(n) {
			return badKey(k, "environment variable %q: %s", n, envvar.Invalid)
		}
	}
	for i, n := range c.SecretEnv {
		if !envvar.Valid(n) {
			return badKey(fmt.Sprintf("%s.secretEnv[%d]", key, i), "environment variable %q: %s", n, envvar.Invalid)
		}
	}
	return nil
}

func isPlaceholder(name string) bool {
	for _, p := range HarnessPlaceholders {
		if p == name {
			return true
		}
	}
	return false
}

func placeholderList() string {
	out := make([]string, len(HarnessPlaceholders))
	for i, p := range HarnessPlaceholders {
		out[i] = "{" + p + "}"
	}
	return strings.Join(out, ", ")
}
