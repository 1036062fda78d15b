package harness

import (
	"fmt"
	"strings"
)

// commandAdapter runs any other agent from an argv template (Config.Argv)
// with placeholders. An argument holding {model} or {effort} is left out
// when that value is empty, together with a bare flag just before it.
type commandAdapter struct{}

func (commandAdapter) Name() string    { return AdapterCommand }
func (commandAdapter) Program() string { return "" }
func (commandAdapter) Format(c Config) string {
	return firstNonEmpty(c.Output, OutputText)
}
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

func (commandAdapter) Check(key string, c Config) error {
	notHere := func(field string) error {
		return fieldErr(key+"."+field, "does not apply to the command adapter; pass your harness's own flag in argv")
	}
	switch {
	case c.Binary != "":
		return fieldErr(key+".binary", "does not apply to the command adapter; put the program in argv[0]")
	case c.PermissionMode != "":
		return notHere("permissionMode")
	case len(c.AllowedTools) > 0:
		return notHere("allowedTools")
	case len(c.Argv) == 0 || strings.TrimSpace(c.Argv[0]) == "":
		return fieldErr(key+".argv", "missing; give the program and its arguments, e.g. [my-agent, --prompt-file, \"{prompt_file}\"]")
	case c.Output != "" && !contains(Outputs, c.Output):
		return fieldErr(key+".output", "%q is not one of %s", c.Output, strings.Join(Outputs, ", "))
	}
	if placeholder.MatchString(c.Argv[0]) {
		return fieldErr(key+".argv[0]", "the program must be fixed; placeholders belong in the arguments")
	}
	prompt := false
	for i, a := range c.Argv {
		for _, m := range placeholder.FindAllStringSubmatch(a, -1) {
			if !isPlaceholder(m[1]) {
				return fieldErr(fmt.Sprintf("%s.argv[%d]", key, i), "unknown placeholder {%s}; use %s", m[1], placeholderList())
			}
			prompt = prompt || m[1] == "prompt_file"
		}
	}
	if !prompt {
		return fieldErr(key+".argv", "never names {prompt_file}, so the session would not get its assignment; add it where your harness reads a prompt file")
	}
	return nil
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
		s := placeholder.ReplaceAllStringFunc(a, func(m string) string {
			name := m[1 : len(m)-1]
			if (name == "model" || name == "effort") && values[name] == "" {
				drop = true
			}
			return values[name]
		})
		if drop {
			bare := a == "{model}" || a == "{effort}"
			if bare && prevKept && strings.HasPrefix(tmpl[i-1], "-") && !placeholder.MatchString(tmpl[i-1]) {
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
