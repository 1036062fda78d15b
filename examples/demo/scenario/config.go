package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The loop's configuration: the poller's config file and the persona
// harnesses the agent nodes are spread over.

// Personas are the agent CLIs Options.Personas stands the fake harness in
// for.
var Personas = []string{"claude", "codex", "gemini", "opencode"}

// personas puts the fake harness under each CLI's name in Dir/bin, with
// the sidecar that gives it the loop's script and state.
func (l *Loop) personas(_ context.Context, o Options) error {
	if !o.Personas {
		return nil
	}
	bin := filepath.Join(l.Dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	sidecar, _ := json.Marshal(map[string]any{"state": l.FakeState, "script": l.Script, "claim": true, "dump": true})
	for _, cli := range Personas {
		link := filepath.Join(bin, cli)
		if err := os.Symlink(o.FakeHarness, link); err != nil {
			return err
		}
		if err := os.WriteFile(link+".fake.json", sidecar, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// personaHarnesses are the personas' harnesses: the CLIs that report no
// cost get a price for every model the checklist offers.
func (l *Loop) personaHarnesses(o Options) string {
	if !o.Personas {
		return ""
	}
	var b strings.Builder
	for _, cli := range Personas {
		fmt.Fprintf(&b, "  %s:\n    adapter: %s\n    binary: %q\n", cli, cli, filepath.Join(l.Dir, "bin", cli))
		if cli == "codex" || cli == "gemini" {
			b.WriteString("    prices:\n")
			priced := map[string]bool{}
			for _, m := range append(append([]string(nil), o.Models...), "opus-5", "haiku-4") {
				if !priced[m] {
					priced[m] = true
					fmt.Fprintf(&b, "      %s: {input: 2, output: 8}\n", m)
				}
			}
		}
	}
	return b.String()
}

func (l *Loop) writeConfig(_ context.Context, o Options) error {
	return os.WriteFile(l.Config, []byte(l.config(o, l.Checkout, l.State)), 0o600)
}

// config is the loop's config for a poller working in checkout and keeping
// its sessions, trees and (SQLite) database in state.
func (l *Loop) config(o Options, checkout, state string) string {
	harness := o.Harness
	if harness == "" {
		harness = fmt.Sprintf(`    adapter: command
    output: stream-json
    argv: [%q, --prompt-file, "{prompt_file}", --mcp-config, "{mcp_config}", --workdir, "{workdir}", --work-item, "{work_item}",
      --model, "{model}", --effort, "{effort}", --state, %q, --script, %q, --claim, --dump]
`, o.FakeHarness, l.FakeState, l.Script)
	}
	harness += l.personaHarnesses(o)
	sessions := o.Sessions
	switch {
	case o.Unconfined:
		sessions = "confinement: none\n" + sessions
	default:
		// What the scripted agent reaches besides its tree: its run
		// counters, its script and the personas' sidecars. Never the bare
		// remote: a session commits, and the loop pushes.
		ro := fmt.Sprintf("%q", l.Script)
		if o.Personas { // each persona's sidecar beside its link
			ro += fmt.Sprintf(", %q", filepath.Join(l.Dir, "bin"))
		}
		for _, p := range o.ReadOnly {
			ro += fmt.Sprintf(", %q", p)
		}
		sessions = fmt.Sprintf("sandbox:\n  writable: [%q]\n  readOnly: [%s]\n", l.FakeState, ro) + sessions
		if os.Geteuid() == 0 {
			sessions = "user: \"65534\"\n" + sessions
		}
	}
	models := o.Models
	if len(models) == 0 {
		models = []string{"opus-5", "haiku-4"}
	}
	db := fmt.Sprintf("path: %q", filepath.Join(state, "the-loop.db"))
	if o.StoreURL != "" {
		db = fmt.Sprintf("url: %q", o.StoreURL)
	}
	lease := o.LeaseSeconds
	if lease == 0 {
		lease = 30
	}
	cfg := fmt.Sprintf(`integrations:
  github:
    baseUrl: %q
routing:
  authorizedUsers: [%s]
  selfLogins: [%s]
  models: [%s]
  efforts: [high]
signing:
  privateKeyFile: %q
store:
  %s
polling:
  intervalSeconds: 1
  leaseSeconds: %d
  sources:
    - system: github
      repos: [octo/widgets]
      checkout: %q
`, l.GitHub.URL(), Human, l.GitHub.BotLogin(), strings.Join(models, ", "), filepath.Join(l.Home, "signing.key"), db, lease, checkout)
	if !o.GatesOnly {
		cfg += fmt.Sprintf(`harnesses:
  agent:
%scritics:
  - name: codex
    command: [%q, --prompt-file, "{prompt_file}"]
sessions:
  stateDir: %q
  drainSeconds: 5
  stopGraceSeconds: 2
  commitName: the-loop
  commitEmail: loop@example.invalid
  relaunch:
    max: %d
    backoffSeconds: 1
    maxBackoffSeconds: 2
%s`, harness, o.FakeCritic, state, o.RelaunchMax, indent(sessions))
	}
	cfg += o.Config
	return cfg
}

func indent(yaml string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(yaml, "\n"), "\n") {
		if line != "" {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}
