package harness

import (
	"strings"

	"github.com/the-loop/the-loop/config"
)

// commandAdapter runs any other agent from an argv template (Config.Argv)
// with placeholders. An argument holding {model} or {effort} is left out
// when that value is empty, together with a bare flag just before it.
type commandAdapter struct{}

func (commandAdapter) Name() string { return AdapterCommand }

func (commandAdapter) Help() [][]string { return nil }
func (commandAdapter) Home() Home       { return Home{} }

// Resume continues a session of a harness that prints Claude Code's
// stream-json the way Claude Code does; another output has no known way.
func (commandAdapter) Resume(c Config, id, _ string) string {
	if c.Format() != OutputStreamJSON {
		return ""
	}
	return c.Program() + " --resume " + id
}

func (commandAdapter) Build(c Config, p *Plan, l Launch) error {
	cfg, err := p.Server.mcpJSON()
	if err != nil {
		return err
	}
	if p.MCPConfig, err = p.writeFile(l, "mcp.json", cfg); err != nil {
		return err
	}
	p.Argv = expand(c.Argv, p, l)
	return nil
}

// expand fills the command adapter's template. An argument holding
// {model} or {effort} is left out when that value is empty, together with
// a bare flag just before it (so "--model", "{model}" disappears whole).
func expand(tmpl []string, p *Plan, l Launch) []string {
	values := map[string]string{
		"prompt_file": p.PromptFile, "mcp_config": p.MCPConfig, "model": p.Model,
		"effort": p.Effort, "workdir": l.Workdir, "work_item": l.WorkItem,
	}
	out := make([]string, 0, len(tmpl))
	prevKept := false // whether tmpl[i-1] is the last element of out
	for i, a := range tmpl {
		drop := false
		s := config.Placeholder.ReplaceAllStringFunc(a, func(m string) string {
			name := m[1 : len(m)-1]
			if (name == "model" || name == "effort") && values[name] == "" {
				drop = true
			}
			return values[name]
		})
		if drop {
			bare := a == "{model}" || a == "{effort}"
			if bare && prevKept && strings.HasPrefix(tmpl[i-1], "-") && !config.Placeholder.MatchString(tmpl[i-1]) {
				out = out[:len(out)-1]
			}
			prevKept = false
			continue
		}
		out = append(out, s)
		prevKept = true
	}
	return out
}

func (commandAdapter) Exits() map[int]string { return nil }
