package harness

import "encoding/json"

// geminiAdapter runs Gemini CLI headless:
//
//	gemini --skip-trust -o stream-json --approval-mode auto_edit [-m M]
//
// with the prompt on standard input (not a terminal, so headless; in a
// terminal: --prompt=<text>) and GEMINI_CLI_SYSTEM_SETTINGS_PATH naming
// <session>/gemini-settings.json. System settings are read last and win:
// its mcpServers entry replaces any server of that name, mcp.allowed keeps
// every other server out, trust lets the item's server's tools run without
// a confirmation (headless Gemini CLI turns one into a refusal), and
// tools.allowed carries allowedTools. --skip-trust trusts the working tree
// for this session, without which headless Gemini CLI refuses to run.
// Gemini CLI has no effort setting.
type geminiAdapter struct{}

var geminiModes = []string{"auto_edit", "default", "plan"}

func (geminiAdapter) Name() string         { return AdapterGemini }
func (geminiAdapter) Program() string      { return "gemini" }
func (geminiAdapter) Format(Config) string { return OutputGeminiJSON }
func (geminiAdapter) Help() [][]string     { return [][]string{{"--help"}} }
func (geminiAdapter) Home() Home {
	return Home{State: []string{".gemini"}, Login: []string{".gemini/oauth_creds.json", ".gemini/google_accounts.json"}}
}
func (geminiAdapter) Resume(c Config, id string) string { return c.Program() + " --resume " + id }

func (geminiAdapter) Check(key string, c Config) error {
	if err := checkCLI(key, c); err != nil {
		return err
	}
	if c.Effort != "" {
		return fieldErr(key+".effort", "gemini has no effort setting; remove effort")
	}
	if err := oneOfModes(key+".permissionMode", c.PermissionMode, geminiModes, map[string]string{
		"yolo": "approves every tool call",
	}); err != nil {
		return err
	}
	return checkToolRules(key, c.AllowedTools)
}

// geminiSettings is the session's system settings file.
type geminiSettings struct {
	MCPServers map[string]geminiServer `json:"mcpServers"`
	MCP        struct {
		Allowed []string `json:"allowed"`
	} `json:"mcp"`
	Tools *struct {
		Allowed []string `json:"allowed"`
	} `json:"tools,omitempty"`
}

type geminiServer struct {
	Server
	Trust bool `json:"trust"`
}

func (geminiAdapter) Build(c Config, p *Plan, l Launch) error {
	if p.Effort != "" {
		p.Notes = append(p.Notes, notPassed("effort", p.Effort, "gemini"))
		p.Effort = ""
	}
	var s geminiSettings
	s.MCPServers = map[string]geminiServer{ServerName: {Server: p.Server, Trust: true}}
	s.MCP.Allowed = []string{ServerName}
	if len(c.AllowedTools) > 0 {
		s.Tools = &struct {
			Allowed []string `json:"allowed"`
		}{Allowed: c.AllowedTools}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if p.MCPConfig, err = p.writeFile(l, "gemini-settings.json", append(b, '\n')); err != nil {
		return err
	}
	p.setEnv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", p.MCPConfig)
	p.Argv = []string{c.Program(), "--skip-trust", "-o", "stream-json", "--approval-mode", firstNonEmpty(c.PermissionMode, geminiModes[0])}
	if p.Model != "" {
		p.Argv = append(p.Argv, "-m", p.Model)
	}
	_, err = p.promptAsArg(l, "--prompt=")
	return err
}

func (geminiAdapter) Exits() map[int]string {
	return map[int]string{41: "Gemini CLI could not authenticate", 42: "Gemini CLI refused its input", 53: "Gemini CLI reached its turn limit"}
}
