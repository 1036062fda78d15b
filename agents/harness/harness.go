// Package harness launches agent sessions: it turns a harness's
// configuration and one assignment into a launch plan (argv, environment,
// prompt file, MCP config) for the session supervisor, and reads the usage
// figures a harness reports in its stream-json transcript.
//
// Two adapters ship. "claude" runs Claude Code headless (claude -p with
// stream-json output, the prompt on stdin, an MCP config whose only server
// is the item's `the-loop serve`). "command" runs any other agent from an
// argv template with placeholders. Nothing runs through a shell, and the
// environment is an allow-list.
package harness

import "github.com/the-loop/the-loop/config"

// Config is one harness as the operator configured it: an entry of the
// config's `harnesses:` map, which package config owns and checks.
type Config = config.Harness

// The adapters and output formats a harness's config names.
const (
	AdapterClaude         = config.AdapterClaude
	AdapterCommand        = config.AdapterCommand
	OutputStreamJSON      = config.OutputStreamJSON
	OutputText            = config.OutputText
	DefaultPermissionMode = config.DefaultPermissionMode
)

// ServerName is the MCP server name of the item's `the-loop serve`; its
// tools reach the model as mcp__the-loop__<tool>.
const ServerName = "the-loop"
