package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// codexAdapter runs the OpenAI Codex CLI non-interactively:
//
//	codex exec --json --ignore-user-config -C <tree> -s workspace-write \
//	  -c sandbox_workspace_write.network_access=true [--add-dir <git dir>] [-m M] [-c model_reasoning_effort="E"] \
//	  -c mcp_servers.the-loop.command="…" -c mcp_servers.the-loop.args=[…] [-c mcp_servers.the-loop.env={…}] \
//	  -c mcp_servers.the-loop.default_tools_approval_mode="approve" -
//
// Codex has no MCP config file flag: the server is given as -c overrides,
// and --ignore-user-config keeps the servers of $CODEX_HOME/config.toml
// out (its login still comes from CODEX_HOME). The prompt is read from
// standard input ("-"; in a terminal: the last argument, after "--"). Its
// sandbox is the permission posture; the flag that bypasses approvals and
// sandbox is never emitted.
type codexAdapter struct{}

func (codexAdapter) Name() string     { return AdapterCodex }
func (codexAdapter) Help() [][]string { return [][]string{{"exec", "--help"}} }
func (codexAdapter) Home() Home {
	return Home{State: []string{".codex"}, Login: []string{".codex/auth.json"}}
}
func (codexAdapter) Resume(c Config, id, _ string) string { return c.Program() + " resume " + id }

func (codexAdapter) Build(c Config, p *Plan, l Launch) error {
	mode := firstNonEmpty(c.PermissionMode, c.DefaultPermission())
	p.Argv = []string{c.Program(), "exec", "--json", "--ignore-user-config", "-C", l.Workdir, "-s", mode}
	if mode == "workspace-write" {
		// The session pushes its commits: the sandbox keeps the network
		// off unless told.
		p.Argv = append(p.Argv, "-c", "sandbox_workspace_write.network_access=true")
		if common := gitCommonDir(l.Workdir); common != "" {
			p.Argv = append(p.Argv, "--add-dir", common)
		} else if fi, err := os.Stat(filepath.Join(l.Workdir, ".git")); err == nil && fi.IsDir() {
			p.Notes = append(p.Notes, "codex's workspace-write sandbox keeps "+filepath.Join(l.Workdir, ".git")+" read-only, so the session cannot commit there (a session in the item's own working tree can)")
		}
	}
	if p.Model != "" {
		p.Argv = append(p.Argv, "-m", p.Model)
	}
	if p.Effort != "" {
		p.Argv = append(p.Argv, "-c", "model_reasoning_effort="+tomlString(p.Effort))
	}
	srv := "mcp_servers." + ServerName + "."
	p.Argv = append(p.Argv, "-c", srv+"command="+tomlString(p.Server.Command), "-c", srv+"args="+tomlArray(p.Server.Args))
	if len(p.Server.Env) > 0 {
		p.Argv = append(p.Argv, "-c", srv+"env="+tomlTable(p.Server.Env))
	}
	// codex exec cannot ask: an MCP call waiting for approval is cancelled.
	p.Argv = append(p.Argv, "-c", srv+`default_tools_approval_mode="approve"`)
	if l.Terminal {
		p.Argv = append(p.Argv, "--")
		_, err := p.promptAsArg(l, "")
		return err
	}
	p.Argv = append(p.Argv, "-")
	p.StdinPath = p.PromptFile
	return nil
}

// gitCommonDir returns the common git directory of a linked worktree at
// dir (the one its .git file points into), "" when dir is not one.
func gitCommonDir(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil {
		return "" // a directory (a main checkout) or none
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	common := gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	return filepath.Clean(common)
}

// tomlString is s as a TOML basic string: JSON's escapes are TOML's, and
// DEL, which JSON leaves raw, is escaped.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "\x7f", `\u007f`)
}

func tomlArray(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func tomlTable(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, tomlString(k)+" = "+tomlString(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (codexAdapter) Exits() map[int]string { return map[int]string{101: "codex crashed"} }
