// Package harness launches agent sessions: it turns a harness's
// configuration and one assignment into a launch plan (argv, environment,
// prompt file, the CLI's per-session MCP configuration) for the session
// supervisor, and reads the usage figures, the final result and the errors
// each CLI reports in its machine output.
//
// Five adapters ship, one file each: "claude" (Claude Code), "codex"
// (OpenAI Codex CLI), "gemini" (Gemini CLI), "opencode" (opencode) and
// "command" (any other agent, from an argv template with placeholders).
// Every adapter gives its session one MCP server, the item's confined
// `the-loop serve`. Nothing runs through a shell, and the environment is an
// allow-list. Package config owns and checks the harnesses' configuration.
package harness

import "github.com/the-loop/the-loop/config"

// Config is one harness as the operator configured it: an entry of the
// config's `harnesses:` map, which package config owns and checks.
type Config = config.Harness

// Price is what one model costs (config's harnesses.<name>.prices).
type Price = config.Price

// The adapters and output formats a harness's config names.
const (
	AdapterClaude         = config.AdapterClaude
	AdapterCodex          = config.AdapterCodex
	AdapterGemini         = config.AdapterGemini
	AdapterOpencode       = config.AdapterOpencode
	AdapterCommand        = config.AdapterCommand
	OutputStreamJSON      = config.OutputStreamJSON
	OutputCodexJSON       = config.OutputCodexJSON
	OutputGeminiJSON      = config.OutputGeminiJSON
	OutputOpencode        = config.OutputOpencode
	OutputText            = config.OutputText
	DefaultPermissionMode = config.DefaultPermissionMode
)

// Outputs lists the formats a harness's output may be read as.
var Outputs = config.HarnessOutputs

// ServerName is the MCP server name of the item's `the-loop serve`; its
// tools reach the model as mcp__the-loop__<tool> (Claude Code).
const ServerName = "the-loop"

// Validate checks every harness of a `harnesses:` map (config's check).
func Validate(harnesses map[string]Config) error { return config.ValidateHarnesses(harnesses) }
