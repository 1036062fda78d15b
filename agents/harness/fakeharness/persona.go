package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// A persona is the agent CLI the fake stands in for, by the name it is run
// as (claude, codex, gemini, opencode): it reads that CLI's argv and
// per-session configuration as the harness adapter writes them, refuses a
// flag that would bypass approvals, and prints that CLI's machine output.
// Its state and script come from a sidecar file beside it,
// <program>.fake.json: {"state": DIR, "script": DIR, "claim": true, "dump": true}.
type persona struct {
	cli string
	out emitter
}

// personaOf returns the persona the program name asks for (nil: the plain
// fake, configured by its flags).
func personaOf(program string) *persona {
	switch name := filepath.Base(program); name {
	case "claude":
		return &persona{cli: name, out: &claudeOut{}}
	case "codex":
		return &persona{cli: name, out: &codexOut{}}
	case "gemini":
		return &persona{cli: name, out: &geminiOut{}}
	case "opencode":
		return &persona{cli: name, out: &opencodeOut{}}
	}
	return nil
}

// sidecar is the persona's own configuration. Help and Version, when
// set, replace the pinned CLI's help and version text (an older CLI).
type sidecar struct {
	State   string `json:"state"`
	Script  string `json:"script"`
	Claim   bool   `json:"claim"`
	Dump    bool   `json:"dump"`
	Help    string `json:"help"`
	Version string `json:"version"`
}

// readSidecar reads <program>.fake.json ({} when there is none).
func readSidecar() (sidecar, error) {
	var sc sidecar
	prog, err := exec.LookPath(os.Args[0])
	if err != nil {
		prog = os.Args[0]
	}
	b, err := os.ReadFile(prog + ".fake.json")
	if err != nil {
		return sc, nil
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		return sc, fmt.Errorf("%s.fake.json: %w", prog, err)
	}
	return sc, nil
}

// helpArgs are the help invocations each CLI's adapter probes.
var helpArgs = map[string]string{"claude": "--help", "codex": "exec --help", "gemini": "--help", "opencode": "run --help"}

// answer prints the CLI's version or help when args ask for it, as the
// pinned CLI does, and reports whether they did.
func (p *persona) answer(args []string) (bool, error) {
	sc, err := readSidecar()
	if err != nil {
		return true, err
	}
	var text []byte
	switch strings.Join(args, " ") {
	case "--version":
		if text, err = harnesstest.Version(p.cli); sc.Version != "" {
			text, err = []byte(sc.Version+"\n"), nil
		}
	case helpArgs[p.cli]:
		if text, err = harnesstest.Help(p.cli); sc.Help != "" {
			text, err = []byte(sc.Help), nil
		}
	default:
		return false, nil
	}
	if err == nil {
		_, err = os.Stdout.Write(text)
	}
	return true, err
}

// bypasses are flags and values no session may ever be given.
var bypasses = lazyre.New(`^--?(dangerously-skip-permissions|allow-dangerously-skip-permissions|dangerously-bypass-approvals-and-sandbox|yolo|y|auto|approve-for-me)$|^(bypassPermissions|yolo)$`)

// options reads the persona's argv and configuration.
func (p *persona) options(args []string) (options, error) {
	o := options{out: p.out, cli: p.cli}
	for _, a := range args {
		if bypasses().MatchString(a) {
			return o, fmt.Errorf("%s was given %s, a bypass of approvals", p.cli, a)
		}
	}
	sc, err := readSidecar()
	if err != nil {
		return o, err
	}
	o.state, o.script, o.claim, o.dump = sc.State, sc.Script, sc.Claim, sc.Dump
	o.item = os.Getenv("THE_LOOP_WORK_ITEM")
	o.workdir, _ = os.Getwd()
	var prompt string
	switch p.cli {
	case "claude":
		prompt, err = o.claudeArgs(args)
	case "codex":
		prompt, err = o.codexArgs(args)
	case "gemini":
		prompt, err = o.geminiArgs(args)
	case "opencode":
		prompt, err = o.opencodeArgs(args)
	}
	if err != nil {
		return o, err
	}
	if prompt == "" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return o, fmt.Errorf("read the prompt from stdin: %w", err)
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		return o, errors.New("no prompt: neither an argument nor standard input held one")
	}
	o.prompt = prompt
	return o, nil
}

// value returns the value of flag at args[i] and the next index.
func value(args []string, i int) (string, int, error) {
	if i+1 >= len(args) {
		return "", i, fmt.Errorf("%s needs a value", args[i])
	}
	return args[i+1], i + 1, nil
}

func (o *options) claudeArgs(args []string) (string, error) {
	prompt := ""
	for i := 0; i < len(args); i++ {
		var err error
		switch a := args[i]; a {
		case "-p":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				prompt, i = args[i+1], i+1
			}
		case "--output-format":
			var f string
			if f, i, err = value(args, i); err == nil && f != "stream-json" {
				err = fmt.Errorf("claude: --output-format %s, not stream-json", f)
			}
		case "--mcp-config":
			o.mcpConfig, i, err = value(args, i)
		case "--model":
			o.model, i, err = value(args, i)
		case "--effort":
			o.effort, i, err = value(args, i)
		case "--permission-mode":
			_, i, err = value(args, i)
		case "--allowedTools":
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		case "--verbose", "--strict-mcp-config":
		default:
			err = fmt.Errorf("claude: unknown argument %q", a)
		}
		if err != nil {
			return "", err
		}
	}
	if o.mcpConfig == "" {
		return "", errors.New("claude: no --mcp-config")
	}
	return prompt, nil
}

// tomlValue reads the TOML values the codex adapter writes: a basic
// string, an array of them, or an inline table of them.
var (
	tomlStr   = `"(?:[^"\\]|\\.)*"`
	tomlPair  = regexp.MustCompile(`(` + tomlStr + `)\s*=\s*(` + tomlStr + `)`)
	tomlItems = regexp.MustCompile(tomlStr)
)

func unquote(s string) string {
	var out string
	if json.Unmarshal([]byte(strings.ReplaceAll(s, `\u007f`, `\u007F`)), &out) != nil {
		return s
	}
	return out
}

func (o *options) codexArgs(args []string) (string, error) {
	if len(args) == 0 || args[0] != "exec" {
		return "", errors.New("codex: the adapter runs `codex exec`")
	}
	srv := &server{}
	prompt, stdin, json := "", false, false
	for i := 1; i < len(args); i++ {
		var err error
		switch a := args[i]; a {
		case "--json":
			json = true
		case "--ignore-user-config":
		case "-C":
			o.workdir, i, err = value(args, i)
		case "-s", "--add-dir":
			_, i, err = value(args, i)
		case "-m":
			o.model, i, err = value(args, i)
		case "-c":
			var kv string
			if kv, i, err = value(args, i); err != nil {
				break
			}
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "mcp_servers.the-loop.command":
				srv.Command = unquote(v)
			case "mcp_servers.the-loop.args":
				for _, m := range tomlItems.FindAllString(v, -1) {
					srv.Args = append(srv.Args, unquote(m))
				}
			case "mcp_servers.the-loop.env":
				srv.Env = map[string]string{}
				for _, m := range tomlPair.FindAllStringSubmatch(v, -1) {
					srv.Env[unquote(m[1])] = unquote(m[2])
				}
			case "model_reasoning_effort":
				o.effort = unquote(v)
			case "mcp_servers.the-loop.default_tools_approval_mode", "sandbox_workspace_write.network_access":
			default:
				if strings.HasPrefix(k, "mcp_servers.") {
					err = fmt.Errorf("codex: a server other than the-loop: %s", k)
				}
			}
		case "-":
			stdin = true
		case "--":
			if i+1 < len(args) {
				prompt = args[i+1]
			}
			i = len(args)
		default:
			err = fmt.Errorf("codex: unknown argument %q", a)
		}
		if err != nil {
			return "", err
		}
	}
	switch {
	case !json:
		return "", errors.New("codex: no --json")
	case srv.Command == "":
		return "", errors.New("codex: no mcp_servers.the-loop.command")
	case prompt == "" && !stdin:
		return "", errors.New("codex: no prompt argument and no - for stdin")
	}
	o.server = srv
	return prompt, nil
}

func (o *options) geminiArgs(args []string) (string, error) {
	prompt, allowed := "", false
	for i := 0; i < len(args); i++ {
		var err error
		switch a := args[i]; {
		case a == "--skip-trust":
		case a == "-o":
			var f string
			if f, i, err = value(args, i); err == nil && f != "stream-json" {
				err = fmt.Errorf("gemini: -o %s, not stream-json", f)
			}
		case a == "--approval-mode":
			_, i, err = value(args, i)
		case a == "--allowed-mcp-server-names":
			var names string
			if names, i, err = value(args, i); err == nil && names != "the-loop" {
				err = fmt.Errorf("gemini: --allowed-mcp-server-names %s, not the-loop", names)
			}
			allowed = true
		case a == "-m":
			o.model, i, err = value(args, i)
		case strings.HasPrefix(a, "--prompt="):
			prompt = strings.TrimPrefix(a, "--prompt=")
		default:
			err = fmt.Errorf("gemini: unknown argument %q", a)
		}
		if err != nil {
			return "", err
		}
	}
	if !allowed {
		return "", errors.New("gemini: no --allowed-mcp-server-names, so a settings file could add servers")
	}
	home := os.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		return "", errors.New("gemini: GEMINI_CLI_HOME is unset, so the user's own settings would be read")
	}
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err != nil {
		return "", fmt.Errorf("gemini: user settings: %w", err)
	}
	var s struct {
		MCPServers map[string]struct {
			server
			Trust bool `json:"trust"`
		} `json:"mcpServers"`
		MCP struct {
			Allowed []string `json:"allowed"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("gemini: user settings: %w", err)
	}
	srv, ok := s.MCPServers["the-loop"]
	switch {
	case !ok || len(s.MCPServers) != 1:
		return "", fmt.Errorf("gemini: the settings must name exactly the the-loop server, got %d servers", len(s.MCPServers))
	case len(s.MCP.Allowed) != 1 || s.MCP.Allowed[0] != "the-loop":
		return "", fmt.Errorf("gemini: mcp.allowed is %v, not [the-loop]", s.MCP.Allowed)
	case !srv.Trust:
		return "", errors.New("gemini: the-loop's server is not trusted, so headless Gemini CLI would refuse its tools")
	}
	o.server = &srv.server
	return prompt, nil
}

func (o *options) opencodeArgs(args []string) (string, error) {
	if len(args) == 0 || args[0] != "run" {
		return "", errors.New("opencode: the adapter runs `opencode run`")
	}
	prompt, format := "", ""
	for i := 1; i < len(args); i++ {
		var err error
		switch a := args[i]; a {
		case "--format":
			format, i, err = value(args, i)
		case "-m":
			o.model, i, err = value(args, i)
		case "--variant":
			o.effort, i, err = value(args, i)
		case "--":
			prompt = strings.Join(args[i+1:], " ")
			i = len(args)
		default:
			err = fmt.Errorf("opencode: unknown argument %q", a)
		}
		if err != nil {
			return "", err
		}
	}
	if format != "json" {
		return "", fmt.Errorf("opencode: --format %q, not json", format)
	}
	if os.Getenv("OPENCODE_DISABLE_PROJECT_CONFIG") == "" {
		return "", errors.New("opencode: OPENCODE_DISABLE_PROJECT_CONFIG is unset, so the tree's opencode.json would be read")
	}
	var cfg struct {
		MCP map[string]struct {
			Type        string            `json:"type"`
			Command     []string          `json:"command"`
			Environment map[string]string `json:"environment"`
		} `json:"mcp"`
		Permission map[string]any `json:"permission"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("OPENCODE_CONFIG_CONTENT")), &cfg); err != nil {
		return "", fmt.Errorf("opencode: OPENCODE_CONFIG_CONTENT: %w", err)
	}
	srv, ok := cfg.MCP["the-loop"]
	switch {
	case !ok || len(cfg.MCP) != 1 || srv.Type != "local" || len(srv.Command) == 0:
		return "", fmt.Errorf("opencode: the config must name exactly the the-loop local server, got %d servers", len(cfg.MCP))
	case cfg.Permission["the-loop_*"] != "allow":
		return "", errors.New("opencode: the-loop's tools are not allowed, so `opencode run` would reject them")
	}
	o.server = &server{Command: srv.Command[0], Args: srv.Command[1:], Env: srv.Environment}
	return prompt, nil
}
