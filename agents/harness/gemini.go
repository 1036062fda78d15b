package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// geminiAdapter runs Gemini CLI headless:
//
//	gemini --skip-trust -o stream-json --approval-mode auto_edit --allowed-mcp-server-names the-loop [-m M]
//
// with the prompt on standard input (not a terminal, so headless; in a
// terminal: --prompt=<text>) and GEMINI_CLI_HOME naming a home of the
// session's own, whose .gemini/settings.json (user settings) names the
// item's server, trusted so its tools run without a confirmation (headless
// Gemini CLI turns one into a refusal), and carries allowedTools as
// tools.allowed. A project's .gemini/settings.json shows its servers
// disabled in a folder Gemini CLI does not trust, and a system settings
// file (GEMINI_CLI_SYSTEM_SETTINGS_PATH) is skipped unless root owns it
// and every directory above it, so the session's own home carries the
// server. --allowed-mcp-server-names keeps every other server out,
// whatever a settings file names; --skip-trust trusts the working tree for
// this session, without which headless Gemini CLI refuses to run. That
// home also holds Gemini CLI's history, and no login: a session
// authenticates with an API key variable (GEMINI_API_KEY) named in
// secretEnv. Gemini CLI has no effort setting.
type geminiAdapter struct{}

func (geminiAdapter) Name() string     { return AdapterGemini }
func (geminiAdapter) Help() [][]string { return [][]string{{"--help"}} }
func (geminiAdapter) Home() Home       { return Home{} } // its home is the session's (GEMINI_CLI_HOME)
// Resume continues the session in the session's own Gemini CLI home.
func (geminiAdapter) Resume(c Config, id, dir string) string {
	return "GEMINI_CLI_HOME=" + filepath.Join(dir, GeminiHome) + " " + c.Program() + " --resume " + id
}

// geminiSettings is the session's user settings file.
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

// GeminiHome is the folder of a session's directory that is its Gemini
// CLI home (GEMINI_CLI_HOME).
const GeminiHome = "gemini-home"

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
	home := filepath.Join(l.Dir, GeminiHome)
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		return fmt.Errorf("gemini home %s: %w", home, err)
	}
	if p.MCPConfig, err = p.writeFile(l, filepath.Join(GeminiHome, ".gemini", "settings.json"), append(b, '\n')); err != nil {
		return err
	}
	p.setEnv("GEMINI_CLI_HOME", home)
	p.Writable = append(p.Writable, home)
	p.Argv = []string{c.Program(), "--skip-trust", "-o", "stream-json", "--approval-mode", firstNonEmpty(c.PermissionMode, c.DefaultPermission()),
		"--allowed-mcp-server-names", ServerName}
	if p.Model != "" {
		p.Argv = append(p.Argv, "-m", p.Model)
	}
	_, err = p.promptAsArg(l, "--prompt=")
	return err
}

func (geminiAdapter) Exits() map[int]string {
	return map[int]string{41: "Gemini CLI could not authenticate", 42: "Gemini CLI refused its input", 53: "Gemini CLI reached its turn limit"}
}
