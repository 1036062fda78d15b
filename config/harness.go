package config

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/internal/envvar"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// Adapters a harness names.
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

// HarnessOutputs lists the formats a harness's output may be read as.
var HarnessOutputs = []string{OutputText, OutputStreamJSON, OutputCodexJSON, OutputGeminiJSON, OutputOpencode}

// DefaultPermissionMode is the claude adapter's --permission-mode when the
// config names none: edits are accepted; any other tool must be allowed.
const DefaultPermissionMode = "acceptEdits"

// Harness is one harness: how a session is launched. It is the value of
// one entry of the `harnesses:` map; package harness (agents/harness)
// turns it into a launch plan.
type Harness struct {
	// Adapter is claude, codex, gemini, opencode or command.
	Adapter string `yaml:"adapter"`
	// Binary is the CLI's program (default: the adapter's, e.g. "codex");
	// the command adapter names its program in argv[0] instead.
	Binary string `yaml:"binary"`
	// Argv is the command adapter's argv template; see HarnessPlaceholders.
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

// Price is what one model costs, in US dollars per million tokens. It
// estimates the cost of a session whose CLI reports none.
type Price struct {
	// Input and Output are required; a model that costs nothing says 0.
	Input  *float64 `yaml:"input" json:"input"`
	Output *float64 `yaml:"output" json:"output"`
	// CachedInput is a cache read (default: Input); CacheWrite a cache
	// write (default: Input).
	CachedInput *float64 `yaml:"cachedInput" json:"cachedInput,omitempty"`
	CacheWrite  *float64 `yaml:"cacheWrite" json:"cacheWrite,omitempty"`
}

// harnessAdapter is what the config knows of one adapter: enough to check
// a harness's values. Package harness (agents/harness) builds its sessions;
// a new adapter is a file there and a row here.
type harnessAdapter struct {
	// output is the machine output its CLI prints ("" = the command
	// adapter: the config's output).
	output string
	// modes are the permissionMode choices, the default first (nil: the
	// adapter takes none); bypass the modes never accepted, and why.
	modes  []string
	bypass map[string]string
	// tools is the shape of one allowedTools rule (nil: allowedTools is
	// refused, saying noTools).
	tools   *regexp.Regexp
	noTools string
	// noEffort says the CLI has no effort setting.
	noEffort bool
	// reportsCost says the CLI reports its own cost, so prices are refused.
	reportsCost bool
}

// anyRule is a tool rule in a CLI's grammar the loop does not parse: one
// rule per entry.
var anyRule = regexp.MustCompile(`^[^\s,-][^,\r\n\x00]*$`)

// harnessAdapters is the one list of adapters the config accepts.
var harnessAdapters = map[string]harnessAdapter{
	AdapterClaude: {output: OutputStreamJSON, modes: []string{DefaultPermissionMode, "default", "manual", "dontAsk", "plan"},
		bypass: map[string]string{"bypassPermissions": "is a bypass of every permission check", "auto": "lets a model approve tool calls"},
		tools:  anyRule, reportsCost: true},
	AdapterCodex: {output: OutputCodexJSON, modes: []string{"workspace-write", "read-only", "danger-full-access"},
		bypass:  map[string]string{"dangerously-bypass-approvals-and-sandbox": "is a bypass of approvals and sandbox"},
		noTools: "codex has no tool allow-list; its sandbox (permissionMode: workspace-write, read-only or danger-full-access) bounds what commands may do"},
	AdapterGemini: {output: OutputGeminiJSON, modes: []string{"auto_edit", "default", "plan"},
		bypass: map[string]string{"yolo": "approves every tool call"}, tools: anyRule, noEffort: true},
	AdapterOpencode: {output: OutputOpencode, modes: []string{"acceptEdits", "plan"},
		bypass: map[string]string{"auto": "approves whatever is not denied", "yolo": "approves whatever is not denied"},
		tools:  OpencodeRule, reportsCost: true},
	AdapterCommand: {noTools: "does not apply to the command adapter; pass your harness's own flag in argv"},
}

// HarnessAdapters lists the adapters, in the order messages name them.
var HarnessAdapters = []string{AdapterClaude, AdapterCodex, AdapterGemini, AdapterOpencode, AdapterCommand}

// OpencodeRule is one opencode allowedTools entry: a tool, or a tool and
// the pattern it is allowed for, e.g. bash(git *).
var OpencodeRule = regexp.MustCompile(`^([a-z][a-z0-9_-]*)(?:\((.+)\))?$`)

// Program is the executable the harness runs.
func (c Harness) Program() string {
	switch {
	case c.Adapter == AdapterCommand && len(c.Argv) > 0:
		return c.Argv[0]
	case c.Adapter == AdapterCommand:
		return ""
	case c.Binary != "":
		return c.Binary
	}
	return c.Adapter
}

// Format is the machine output the harness's sessions print.
func (c Harness) Format() string {
	if a, ok := harnessAdapters[c.Adapter]; ok && a.output != "" {
		return a.output
	}
	if c.Output == "" {
		return OutputText
	}
	return c.Output
}

// ReportsCost says whether the harness's CLI reports its own cost.
func (c Harness) ReportsCost() bool {
	return c.Format() == OutputStreamJSON || c.Format() == OutputOpencode
}

// DefaultPermission is the permission mode a harness runs in when it
// names none ("" for the command adapter).
func (c Harness) DefaultPermission() string {
	if a := harnessAdapters[c.Adapter]; len(a.modes) > 0 {
		return a.modes[0]
	}
	return ""
}

// HarnessPlaceholders are the names the command adapter's argv template
// may use, each written in braces, e.g. {prompt_file}.
var HarnessPlaceholders = []string{"prompt_file", "mcp_config", "model", "effort", "workdir", "work_item"}

var (
	harnessName = lazyre.New(`^[a-z0-9][a-z0-9_-]{0,39}$`)
	modelName   = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$`)
	effortName  = lazyre.New(`^[a-z][a-z0-9-]{0,31}$`)
)

// Placeholder matches one {name} placeholder of an argv template (a
// harness's argv, a critic's command), the name as its first group. Braces
// that are not a placeholder (a JSON argument) do not match.
var Placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ValidModel reports whether s has a model name's shape: the config's, or
// the one a work item's checklist chose.
func ValidModel(s string) bool { return modelName().MatchString(s) }

// ValidEffort reports whether s has an effort level's shape.
func ValidEffort(s string) bool { return effortName().MatchString(s) }

// ValidateHarnesses checks every harness of a `harnesses:` map, in name
// order, and returns the first problem as a *FieldError.
func ValidateHarnesses(harnesses map[string]Harness) error {
	for _, n := range sortedKeys(harnesses) {
		if !harnessName().MatchString(n) {
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
	if c.Adapter == "" {
		return badKey(key+".adapter", "missing; set adapter: %s", orList(HarnessAdapters))
	}
	a, ok := harnessAdapters[c.Adapter]
	if !ok {
		return badKey(key+".adapter", "%q is not an adapter; use %s", c.Adapter, orList(HarnessAdapters))
	}
	if c.Adapter == AdapterCommand {
		if err := c.validateCommand(key); err != nil {
			return err
		}
	} else if err := c.validateCLI(key, a); err != nil {
		return err
	}
	if c.Model != "" && !ValidModel(c.Model) {
		return badKey(key+".model", "%q is not a model name (letters, digits and . _ : @ / [ ] -)", c.Model)
	}
	if c.Effort != "" && !ValidEffort(c.Effort) {
		return badKey(key+".effort", "%q is not an effort level (lower-case, e.g. high)", c.Effort)
	}
	for i, m := range c.Models {
		if !ValidModel(m) {
			return badKey(fmt.Sprintf("%s.models[%d]", key, i), "%q is not a model name (letters, digits and . _ : @ / [ ] -)", m)
		}
	}
	if err := c.validatePrices(key); err != nil {
		return err
	}
	return c.validateEnv(key)
}

// validateCLI checks a harness of one of the agent CLIs' adapters.
func (c Harness) validateCLI(key string, a harnessAdapter) error {
	switch {
	case len(c.Argv) > 0:
		return badKey(key+".argv", "applies to the command adapter only; the %s adapter builds its own argv (remove argv, or set adapter: command)", c.Adapter)
	case c.Output != "" && c.Output != a.output:
		return badKey(key+".output", "the %s adapter always reads %s; remove output", c.Adapter, a.output)
	case c.Binary != "" && strings.TrimSpace(c.Binary) == "":
		return badKey(key+".binary", "is blank; name the %s program or leave binary out", c.Adapter)
	case a.noEffort && c.Effort != "":
		return badKey(key+".effort", "%s has no effort setting; remove effort", c.Adapter)
	case len(c.AllowedTools) > 0 && a.tools == nil:
		return badKey(key+".allowedTools", "%s", a.noTools)
	}
	if c.PermissionMode != "" {
		if why, ok := a.bypass[c.PermissionMode]; ok {
			return badKey(key+".permissionMode", "%q %s; the loop never runs a session without its approvals (use %s)", c.PermissionMode, why, orList(a.modes))
		}
		if !contains(a.modes, c.PermissionMode) {
			return badKey(key+".permissionMode", "%q is not one of %s", c.PermissionMode, orList(a.modes))
		}
	}
	for i, tool := range c.AllowedTools {
		k := fmt.Sprintf("%s.allowedTools[%d]", key, i)
		switch {
		case strings.TrimSpace(tool) == "" || strings.HasPrefix(tool, "-") || strings.ContainsAny(tool, "\n\r,\x00"):
			return badKey(k, "%q is not a tool rule; give one rule per entry, e.g. Read or \"Bash(go test *)\"", tool)
		case c.Adapter == AdapterOpencode && !a.tools.MatchString(tool):
			return badKey(k, "%q is not an opencode rule; give a tool, or a tool and a pattern, e.g. webfetch or \"bash(git *)\"", tool)
		}
	}
	return nil
}

func (c Harness) validateCommand(key string) error {
	switch {
	case c.Binary != "":
		return badKey(key+".binary", "does not apply to the command adapter; put the program in argv[0]")
	case c.PermissionMode != "":
		return badKey(key+".permissionMode", "does not apply to the command adapter; pass your harness's own flag in argv")
	case len(c.AllowedTools) > 0:
		return badKey(key+".allowedTools", "does not apply to the command adapter; pass your harness's own flag in argv")
	case len(c.Argv) == 0 || strings.TrimSpace(c.Argv[0]) == "":
		return badKey(key+".argv", "missing; give the program and its arguments, e.g. [my-agent, --prompt-file, \"{prompt_file}\"]")
	case c.Output != "" && !contains(HarnessOutputs, c.Output):
		return badKey(key+".output", "%q is not one of %s", c.Output, strings.Join(HarnessOutputs, ", "))
	}
	if Placeholder.MatchString(c.Argv[0]) {
		return badKey(key+".argv[0]", "the program must be fixed; placeholders belong in the arguments")
	}
	prompt := false
	for i, a := range c.Argv {
		for _, m := range Placeholder.FindAllStringSubmatch(a, -1) {
			if !contains(HarnessPlaceholders, m[1]) {
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

func (c Harness) validatePrices(key string) error {
	if len(c.Prices) == 0 {
		return nil
	}
	if c.ReportsCost() {
		return badKey(key+".prices", "%s reports its own cost, so prices would never be read; remove prices", c.Adapter)
	}
	for _, m := range sortedKeys(c.Prices) {
		k := key + ".prices." + m
		if !ValidModel(m) {
			return badKey(k, "%q is not a model name (letters, digits and . _ : @ / [ ] -)", m)
		}
		p := c.Prices[m]
		if p.Input == nil || p.Output == nil {
			return badKey(k, "give input and output, in US dollars per million tokens (e.g. {input: 1.25, output: 10})")
		}
		for _, f := range []struct {
			name string
			v    *float64
		}{{"input", p.Input}, {"output", p.Output}, {"cachedInput", p.CachedInput}, {"cacheWrite", p.CacheWrite}} {
			if f.v != nil && (*f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
				return badKey(k+"."+f.name, "%v is not a price; give US dollars per million tokens, 0 or more", *f.v)
			}
		}
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

func placeholderList() string {
	out := make([]string, len(HarnessPlaceholders))
	for i, p := range HarnessPlaceholders {
		out[i] = "{" + p + "}"
	}
	return strings.Join(out, ", ")
}

// orList says "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
