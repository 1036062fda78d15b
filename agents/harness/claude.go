package harness

// claudeAdapter runs Claude Code headless:
//
//	claude -p --output-format stream-json --verbose --mcp-config <session>/mcp.json --strict-mcp-config \
//	  [--model M] [--effort E] --permission-mode acceptEdits --allowedTools mcp__the-loop <allowedTools…>
//
// The prompt goes on standard input (in a terminal: right after -p, since
// --mcp-config and --allowedTools take several values each).
type claudeAdapter struct{}

func (claudeAdapter) Name() string     { return AdapterClaude }
func (claudeAdapter) Help() [][]string { return [][]string{{"--help"}} }
func (claudeAdapter) Home() Home {
	return Home{State: []string{".claude", ".claude.json"}, Login: []string{".claude/.credentials.json"}}
}

func (claudeAdapter) Resume(c Config, id, _ string) string { return c.Program() + " --resume " + id }

func (claudeAdapter) Build(c Config, p *Plan, l Launch) error {
	cfg, err := p.Server.mcpJSON()
	if err != nil {
		return err
	}
	if p.MCPConfig, err = p.writeFile(l, "mcp.json", cfg); err != nil {
		return err
	}
	p.Argv = []string{c.Program(), "-p"}
	if _, err := p.promptAsArg(l, ""); err != nil {
		return err
	}
	p.Argv = append(p.Argv, "--output-format", OutputStreamJSON, "--verbose", "--mcp-config", p.MCPConfig, "--strict-mcp-config")
	if p.Model != "" {
		p.Argv = append(p.Argv, "--model", p.Model)
	}
	if p.Effort != "" {
		p.Argv = append(p.Argv, "--effort", p.Effort)
	}
	p.Argv = append(p.Argv, "--permission-mode", firstNonEmpty(c.PermissionMode, DefaultPermissionMode))
	p.Argv = append(p.Argv, "--allowedTools", "mcp__"+ServerName)
	p.Argv = append(p.Argv, c.AllowedTools...)
	return nil
}

func (claudeAdapter) Exits() map[int]string { return nil }
