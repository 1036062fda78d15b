package harness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// Adapter is one agent CLI: how its sessions are launched and how its
// machine output is read. Adding a CLI is one file holding its Adapter and
// its output reader, one entry in adapters and readers, and one row of the
// config's adapters (the values it accepts: config/harness.go).
type Adapter interface {
	// Name is the adapter's name in the config (adapter: codex).
	Name() string
	// Build fills p.Argv and p.StdinPath (and the prompt's position when it
	// is an argument), adds the variables the CLI reads to p.Env, and
	// writes the CLI's per-session files into l.Dir; p.Model, p.Effort,
	// p.PromptFile and p.Server are already set.
	Build(c Config, p *Plan, l Launch) error
	// Help lists the help invocations (arguments after the program) whose
	// text must name every flag of the argv Build makes; nil when the
	// argv is the operator's (the command adapter).
	Help() [][]string
	// Home is what the CLI keeps under HOME: the directories it writes its
	// own state to and the files it reads its login from.
	Home() Home
	// Resume is the command that continues a recorded session of harness
	// c by hand, given the CLI's session id and the session's directory
	// ("" when the CLI has none).
	Resume(c Config, id, dir string) string
	// Exits names the exit statuses the CLI documents beyond 0 and 1.
	Exits() map[int]string
}

// ExitMeaning says what exit status code of harness c's CLI means ("" when
// it documents nothing more than failure).
func ExitMeaning(c Config, code int) string {
	if a := AdapterOf(c); a != nil {
		return a.Exits()[code]
	}
	return ""
}

// Home is what a CLI keeps under the session's HOME, relative to it. A
// session with a HOME of its own needs these writable (State) and, for a
// login rather than an API key variable, present (Login).
type Home struct {
	State []string `json:"state,omitempty"`
	Login []string `json:"login,omitempty"`
}

// adapters is the one list of adapters.
var adapters = []Adapter{claudeAdapter{}, codexAdapter{}, geminiAdapter{}, opencodeAdapter{}, commandAdapter{}}

// AdapterNames lists the adapters, in their order.
func AdapterNames() []string { return config.HarnessAdapters }

// adapterFor returns the adapter named name.
func adapterFor(name string) (Adapter, bool) {
	for _, a := range adapters {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// AdapterOf returns the adapter a harness runs (nil for an unknown one).
func AdapterOf(c Config) Adapter {
	a, _ := adapterFor(c.Adapter)
	return a
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

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// notPassed is the note a plan carries for a choice the CLI cannot take.
func notPassed(what, value, cli string) string {
	return fmt.Sprintf("%s %s is not passed: %s has no %s setting", what, value, cli, what)
}
