package scenario_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/examples/demo/scenario"
	"github.com/the-loop/the-loop/internal/testbin"
)

// TestAHostileSessionReachesNothingTheLoopGuards: every session of the
// item is an agent that first tries to escape (agents/harness/hostileharness)
// and then does the honest work (the scripted fake harness). At each node
// — requirements, then design — it tries to read the signing key, the
// config, the store, the credentials directory, the poller's /proc entry
// and any environment holding the poller's secret, another item's tree; to
// write outside its tree; to ptrace and signal the poller; to use its
// socket with a capability not its own, for another item, and for tools
// its server does not list; to run graph force and graph advance with a
// config it wrote against the real store; and it leaves a setsid process
// behind. Every attempt fails, the gates still wait for the human, and
// nothing it started outlives it.
func TestAHostileSessionReachesNothingTheLoopGuards(t *testing.T) {
	t.Parallel()
	o := scenario.Options{
		TheLoop:     testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop"),
		FakeHarness: testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness"),
		FakeCritic:  testbin.Build(t, "github.com/the-loop/the-loop/agents/critic/fakecritic"),
		Dir:         t.TempDir(),
	}
	hostile := testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/hostileharness")
	o.ReadOnly = []string{o.FakeHarness} // the honest work after the attempts
	creds := filepath.Join(o.Dir, "credentials")
	require.NoError(t, os.MkdirAll(creds, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(creds, "GITHUB_TOKEN"), []byte("credential-0042"), 0o644))
	const secret = "poller-secret-0042"
	o.Env = map[string]string{"CREDENTIALS_DIRECTORY": creds, "THE_LOOP_TEST_SECRET": secret}
	state, script, fake := filepath.Join(o.Dir, "state"), filepath.Join(o.Dir, "script"), filepath.Join(o.Dir, "fake")
	other := filepath.Join(state, "trees", "octo-widgets", "issue-9")
	pidFile := filepath.Join(script, "poller.pid")
	o.Harness = fmt.Sprintf(`    adapter: command
    output: stream-json
    argv: [%q, --prompt-file, "{prompt_file}", --work-item, "{work_item}", --key, %q, --config, %q, --store, %q, --creds, %q,
      --other-tree, %q, --outside, %q, --secret, %q, --other-item, issue-9, --the-loop, %q, --poller-pid-file, %q, --remote, %q,
      --, %q, --prompt-file, "{prompt_file}", --mcp-config, "{mcp_config}", --workdir, "{workdir}", --work-item, "{work_item}",
      --model, "{model}", --effort, "{effort}", --state, %q, --script, %q, --claim]
`, hostile, filepath.Join(o.Dir, "home", "signing.key"), filepath.Join(o.Dir, "config.yaml"), filepath.Join(state, "the-loop.db"), creds,
		other, state, secret, o.TheLoop, pidFile, filepath.Join(o.Dir, "remote.git"), o.FakeHarness, fake, script)
	log := &syncBuffer{}
	o.Log = log
	l, err := scenario.New(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() {
		l.Close()
		if t.Failed() {
			t.Logf("poller log:\n%s", log.String())
			paths, _ := filepath.Glob(filepath.Join(l.State, "sessions", "*", "stderr.log"))
			for _, p := range paths {
				b, _ := os.ReadFile(p)
				t.Logf("%s:\n%s", p, b)
			}
		}
	})
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "requirements.md"), []byte("another item's work"), 0o644))
	require.NoError(t, l.Start())
	require.NoError(t, os.WriteFile(pidFile, []byte(strconv.Itoa(l.PollerPID())), 0o644))

	startAndExecute(t, l, 1)
	wait(t, "the requirements review request", reviewRequested(l, 1, "requirements-approval"))
	assert.Equal(t, "requirements-approval", l.Node("issue-1"), "the gate waits for the human, whatever the session ran")
	l.Say(1, "Approved.")
	wait(t, "the design review request", reviewRequested(l, 1, "design-approval"))
	assert.Equal(t, "design-approval", l.Node("issue-1"))

	attempts := map[string]int{}
	var markers []string
	nodes := map[string]bool{}
	for _, s := range sessionsOf(t, l, "issue-1") {
		seen := 0
		for _, a := range hostileAttempts(t, l, s.ID) {
			seen++
			attempts[a.Attempt]++
			if a.Attempt == "linger-started" {
				markers = append(markers, a.Detail)
				continue
			}
			assert.False(t, a.Escaped, "session %s at %s escaped by %s: %s", s.ID, s.Node, a.Attempt, a.Detail)
		}
		if seen > 0 {
			nodes[s.Node] = true
		}
	}
	assert.True(t, nodes["requirements-definition"] && nodes["design"], "the attempts were made at both nodes: %v", nodes)
	for _, want := range []string{"read-key", "read-config", "read-store", "read-credentials", "read-other-tree", "read-poller-environ",
		"ptrace-poller", "signal-poller", "scan-environ", "write-outside", "write-other-tree", "write-tmp", "socket-other-capability",
		"socket-other-item-graph_status", "socket-other-item-graph_complete", "socket-unlisted-handoff_post", "socket-unlisted-ticket_create",
		"socket-unlisted-ticket_projects", "cli-force", "cli-advance", "linger-started", "git-push", "git-push-remote", "write-repo-dir",
		"write-source-refs"} {
		assert.Greater(t, attempts[want], 0, "attempt %s was made", want)
	}
	require.NotEmpty(t, markers)
	for _, m := range markers {
		assert.False(t, processWith(m), "the process %s left behind outlived its session", m)
	}
	body, err := os.ReadFile(filepath.Join(other, "requirements.md"))
	require.NoError(t, err)
	assert.Equal(t, "another item's work", string(body))
	out, err := l.Run(ctx, "graph", "events", "issue-1", "--config", l.Config, "--repo", l.Tree("issue-1"))
	require.NoError(t, err)
	assert.NotContains(t, out, "graph.forced", "no force reached the item")
}

type attempt struct {
	Attempt string
	Escaped bool
	Detail  string
}

// hostileAttempts reads a session's reported attempts from its transcript.
func hostileAttempts(t *testing.T, l *scenario.Loop, session string) []attempt {
	t.Helper()
	f, err := os.Open(filepath.Join(l.State, "sessions", session, "transcript.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var out []attempt
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var a struct {
			Type string
			attempt
		}
		if json.Unmarshal(sc.Bytes(), &a) == nil && a.Type == "hostile" {
			out = append(out, a.attempt)
		}
	}
	return out
}

// processWith reports whether a live process has marker in its command
// line, host-wide.
func processWith(marker string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			return true
		}
	}
	return false
}
