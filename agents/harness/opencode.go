package harness

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// opencodeAdapter runs opencode non-interactively:
//
//	opencode run --format json [-m provider/model] [--variant E]
//
// with the prompt on standard input (in a terminal: after "--") and its
// configuration inline in OPENCODE_CONFIG_CONTENT, which opencode reads
// last: the item's server under mcp, and the permissions — edits allowed,
// the item's tools allowed, any other tool asked for, which `opencode run`
// refuses ("permission requested: …; auto-rejecting"), except what
// allowedTools allows. OPENCODE_DISABLE_PROJECT_CONFIG keeps the working
// tree's opencode.json, which the session can write, out. --auto, which
// approves whatever is not denied, is never emitted.
type opencodeAdapter struct{}

func (opencodeAdapter) Name() string     { return AdapterOpencode }
func (opencodeAdapter) Help() [][]string { return [][]string{{"run", "--help"}} }
func (opencodeAdapter) Home() Home {
	return Home{State: []string{".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode"},
		Login: []string{".local/share/opencode/auth.json"}}
}
func (opencodeAdapter) Resume(c Config, id, _ string) string { return c.Program() + " --session " + id }

func (opencodeAdapter) Build(c Config, p *Plan, l Launch) error {
	edit := "allow"
	if c.PermissionMode == "plan" {
		edit = "deny"
	}
	perm := map[string]any{"edit": edit, ServerName + "_*": "allow"}
	patterns := map[string]map[string]string{}
	for _, r := range c.AllowedTools {
		m := config.OpencodeRule.FindStringSubmatch(r)
		if m[2] == "" {
			perm[m[1]] = "allow"
			continue
		}
		if patterns[m[1]] == nil {
			patterns[m[1]] = map[string]string{"*": "ask"}
		}
		patterns[m[1]][m[2]] = "allow"
	}
	for tool, rules := range patterns {
		if _, whole := perm[tool]; !whole {
			perm[tool] = rules
		}
	}
	if _, ok := perm["bash"]; !ok {
		perm["bash"] = "ask"
	}
	command := append([]string{p.Server.Command}, p.Server.Args...)
	local := map[string]any{"type": "local", "command": command, "enabled": true}
	if len(p.Server.Env) > 0 {
		local["environment"] = p.Server.Env
	}
	cfg := map[string]any{"mcp": map[string]any{ServerName: local}, "permission": perm}
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	p.setEnv("OPENCODE_CONFIG_CONTENT", string(b))
	p.setEnv("OPENCODE_DISABLE_PROJECT_CONFIG", "1")
	p.setEnv("OPENCODE_DISABLE_AUTOUPDATE", "1")
	p.Argv = []string{c.Program(), "run", "--format", "json"}
	if p.Model != "" {
		if !strings.Contains(p.Model, "/") {
			p.Notes = append(p.Notes, fmt.Sprintf("model %s has no provider/ prefix; opencode reads it as its own default provider's", p.Model))
		}
		p.Argv = append(p.Argv, "-m", p.Model)
	}
	if p.Effort != "" {
		p.Argv = append(p.Argv, "--variant", p.Effort)
	}
	if l.Terminal {
		p.Argv = append(p.Argv, "--")
	}
	_, err = p.promptAsArg(l, "")
	return err
}

func (opencodeAdapter) Exits() map[int]string { return nil }
