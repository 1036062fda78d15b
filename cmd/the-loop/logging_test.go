package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/testbin"
)

// logRig runs the built binary — the real process, whose logger is also
// slog's and the log package's default — against a fake GitHub.
type logRig struct {
	bin, config, checkout string
	gh                    *providertest.Server
	env                   []string
}

func newLogRig(t *testing.T) *logRig {
	t.Helper()
	r := &logRig{bin: testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop"), gh: providertest.NewGitHub(t)}
	r.checkout = copyDir(t, fixtureRepo(t))
	// A repository graph the loop ignores: repoconfig warns through slog's
	// default logger, as a library would.
	require.NoError(t, os.WriteFile(filepath.Join(r.checkout, ".the-loop", "graph.yaml"), []byte("nodes: []\n"), 0o644))
	r.gh.SeedIssue("Export CSV", nil, true)
	r.config = filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(r.config, []byte(fmt.Sprintf(`integrations:
  github:
    baseUrl: %s
    tokenEnv: TEST_GH_TOKEN
polling:
  sources:
    - {system: github, repos: [%s], checkout: %s}
`, r.gh.URL(), providertest.GitHubRepo, r.checkout)), 0o600))
	home := t.TempDir()
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "THE_LOOP_CONFIG=" + r.config,
		"THE_LOOP_DB=" + filepath.Join(t.TempDir(), "state.db"), "TEST_GH_TOKEN=" + r.gh.Token()}
	return r
}

func (r *logRig) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = r.env, r.checkout, strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// assertJSONLines asserts that every stderr line is one JSON object with a
// level and a message, and returns the messages.
func assertJSONLines(t *testing.T, stderr string) []string {
	t.Helper()
	require.NotEmpty(t, strings.TrimSpace(stderr))
	var msgs []string
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		var rec struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		if !assert.NoError(t, json.Unmarshal([]byte(line), &rec), "a stderr line is not JSON: %q", line) {
			continue
		}
		assert.NotEmpty(t, rec.Level, line)
		msgs = append(msgs, rec.Msg)
	}
	return msgs
}

// Under --log-format json every line on stderr is JSON: the poller's own
// lines, the providers' retry lines, the store's and a library's lines
// through slog's default, the start-up warnings, and the final error.
func TestLogFormatJSONMakesEveryStderrLineJSON(t *testing.T) {
	r := newLogRig(t)
	r.gh.FailNext(1, 502)
	out, stderr, code := r.run(t, "", "poll", "--once", "--log-format", "json")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"sources"`)
	all := strings.Join(assertJSONLines(t, stderr), "\n")
	for _, want := range []string{"retrying request", "store schema migrated", "ignoring .the-loop/graph.yaml",
		"routing.authorizedUsers is empty"} {
		assert.Contains(t, all, want)
	}

	_, stderr, code = r.run(t, "", "check", "isue-2", "--log-format", "json")
	assert.Equal(t, exitUsage, code)
	msgs := assertJSONLines(t, stderr)
	assert.Equal(t, 1, strings.Count(stderr, `unknown work item \"isue-2\"`), "the error is printed once")
	assert.Contains(t, msgs[len(msgs)-1], `unknown work item "isue-2"`)
	assert.Contains(t, stderr, `"level":"ERROR"`)

	frames := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check","arguments":{"workItem":"issue-2"}}}`,
		`this line is not json`,
	}, "\n") + "\n"
	out, stderr, code = r.run(t, frames, "serve", "--log-format", "json")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"id":2`)
	msgs = assertJSONLines(t, stderr)
	assert.Contains(t, strings.Join(msgs, "\n"), "mcp tool call")
}

// Without the flag the same lines are slog's text form: none is the log
// package's own "2006/01/02 15:04:05" form.
func TestLogFormatTextHasNoStandardLibraryLines(t *testing.T) {
	r := newLogRig(t)
	r.gh.FailNext(1, 502)
	_, stderr, code := r.run(t, "", "poll", "--once")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, `msg="retrying request"`)
	assert.Contains(t, stderr, `msg="store schema migrated"`)
	assert.NotRegexp(t, regexp.MustCompile(`(?m)^\d{4}/\d{2}/\d{2} `), stderr)
}
