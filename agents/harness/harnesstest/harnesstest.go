// Package harnesstest holds what the harness adapters' tests and the fake
// harness share: recordings of each agent CLI's machine output and the
// help and version text of the CLI versions the adapters were checked
// against (testdata/e2e/agents pins the same versions).
//
// Recordings are made from each CLI's documented output format and the
// event shapes its source prints, one file per case:
//
//	recordings/<cli>/success.jsonl         a session that works, claims and ends
//	recordings/<cli>/tool-error.jsonl      a tool call that fails, the session ends normally
//	recordings/<cli>/rate-limit.jsonl      the provider refuses for rate or quota
//	recordings/<cli>/crash.jsonl           the CLI dies mid-stream (no newline at the end)
//	recordings/<cli>/unknown-events.jsonl  event types the reader does not know
//
// plus gemini's turn-limit.jsonl (exit 53).
package harnesstest

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"
)

//go:embed recordings help
var files embed.FS

// CLIs are the agent CLIs recorded.
var CLIs = []string{"claude", "codex", "gemini", "opencode"}

// Cases are the recordings every CLI has.
var Cases = []string{"success", "tool-error", "rate-limit", "crash", "unknown-events"}

// Recording returns the recording of cli's case.
func Recording(cli, name string) ([]byte, error) {
	b, err := files.ReadFile(path.Join("recordings", cli, name+".jsonl"))
	if err != nil {
		return nil, fmt.Errorf("no recording %s/%s (have %s)", cli, name, strings.Join(Recordings(cli), ", "))
	}
	return b, nil
}

// Recordings lists cli's recordings by case name.
func Recordings(cli string) []string {
	entries, _ := files.ReadDir(path.Join("recordings", cli))
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".jsonl"))
	}
	sort.Strings(out)
	return out
}

// Help returns the help text the pinned cli prints for the subcommand its
// adapter runs, and Version its --version line.
func Help(cli string) ([]byte, error) { return files.ReadFile(path.Join("help", cli+".txt")) }

// Version returns the pinned cli's --version output.
func Version(cli string) ([]byte, error) { return files.ReadFile(path.Join("help", cli+".version")) }

// ExitCode is the exit status the CLI ends a recorded case with: 0 for a
// run that ends on its own, 1 for a failed one (Gemini CLI: 53 when the
// turn limit is reached), 101 for codex's crash (a Rust panic) and 1 for
// the others'.
func ExitCode(cli, name string) int {
	switch name {
	case "success", "tool-error", "unknown-events":
		return 0
	case "turn-limit":
		return 53
	case "crash":
		if cli == "codex" {
			return 101
		}
	}
	return 1
}
