// Package deptest holds the house rules of the module's layout in one
// place and checks them: which top-level folder (a room) may import which,
// which packages the-loop's binary is built from, and the pages that show
// both (docs/architecture.md's rules table, README.md's map of the house),
// which are rendered from the same rules.
//
// Its tests run `go list` over the module, in the style of tailscale's
// tstest/deptest. It is a package rather than a test at the module root so
// that the root holds no Go package and `go test ./internal/deptest` names
// what it checks.
package deptest

// Room is a top-level folder of the module and what it holds.
type Room struct {
	// Path is the folder, relative to the module root.
	Path string
	// Holds says in one line what lives there.
	Holds string
	// Planned names the issue a room is reserved for while it holds no
	// package yet; the rules already place it.
	Planned string
}

// Layers are the rooms that hold Go packages, from the bottom up. A
// package may import a package of its own room or of a room in a lower
// layer: never one beside it in its layer, never one above. Tests
// (_test.go files) may import anything.
var Layers = [][]Room{
	{{Path: "internal", Holds: "leaf helpers with no domain imports: atomic files, git refs, item ids, nearest names, environment variable names, HTTP transport, metrics, lock files, child processes, plain text, markdown, mermaid; the tests' program builder, CI's test report and these rules"}},
	{
		{Path: "graphs", Holds: "the shipped process graphs (YAML), embedded, and the shipped loops' names"},
		{Path: "skills", Holds: "the plugin's skills (operating model, handoff, continuity) and the templates the binary embeds"},
		{Path: "config", Holds: "the operator config as plain structs: its keys, defaults and strict loading"},
	},
	{
		{Path: "integrations", Holds: "the ticket systems (GitHub, Jira, Slack) behind one provider interface, and the fake providers tests run against"},
		{Path: "store", Holds: "durable state: the SQLite database and the portable records"},
	},
	{{Path: "handoff", Holds: "the handoff record: its wire format, parsing and rendering"}},
	{{Path: "runtime", Holds: "the engine: graphs compiled, hook chains, state, decisions and signatures; the hooks; the dependency graph (dag), review rounds, ship readiness, the repository config"}},
	{{Path: "agents", Holds: "the acting half: sessions and their supervisor, harness adapters, working trees, critics, session continuity"}},
	{{Path: "service", Holds: "the one core every verb and tool calls, and the poller"}},
	{{Path: "poller", Holds: "the daemon over the core", Planned: "the poller split out of service"}},
	{
		{Path: "mcp", Holds: "the MCP tools and their transports (stdio, streamable HTTP, OAuth)"},
		{Path: "web", Holds: "the HTTP surfaces of serve --http beside MCP: the read-only web view under /ui/ (web), the webhook feed (web/webhook), the probes and metrics (web/probe)"},
	},
	{{Path: "cmd", Holds: "the-loop's verbs: where the core is built, exit codes mapped and output printed"}},
	{
		{Path: "examples", Holds: "the demo: the whole loop on one machine against a fake GitHub"},
		{Path: "contrib", Holds: "the systemd unit and its checks"},
	},
}

// Folders are the top-level folders that hold no Go package.
var Folders = []Room{
	{Path: ".ci", Holds: "what CI runs (`.ci/run`): installs, vet, tests, static build, the demo, the plugin check, fuzz"},
	{Path: ".claude-plugin", Holds: "the Claude Code plugin's manifest and marketplace entry"},
	{Path: "bench", Holds: "benchmark scripts that report ratios against a floor measured in the same run"},
	{Path: "docs", Holds: "the documentation: one page per area"},
	{Path: "plugin", Holds: "the plugin's slash commands (plugin/commands) and stop-check hook files (plugin/stop-check)"},
	{Path: "testdata", Holds: "fixtures: a sample repository, golden outputs, the end-to-end MCP clients (testdata/e2e)"},
	{Path: "third_party", Holds: "a patched copy of one dependency, through a replace in go.mod: jsonschema/v6 with its meta-schemas compiled on first use, not at start-up (third_party/jsonschema/README.md)"},
}

// MayImportTestSupport names the rooms whose packages may import a
// test-support package (IsTestSupport): the demo drives the fake GitHub.
// Every other package imports them only from its tests.
var MayImportTestSupport = []string{"examples"}

// Exception is an import the layering refuses but the code needs, with the
// reason. Keep them few.
type Exception struct {
	From, To, Why string
}

// Exceptions are the allowed climbing imports, by package import path
// relative to the module.
var Exceptions = []Exception{
	{From: "agents/harness/hostileharness", To: "mcp/gateway",
		Why: "a test program that plays an agent inside its session: it dials its session's socket with the session's own client, as the-loop serve does there, to try capabilities and items that are not its own"},
}
