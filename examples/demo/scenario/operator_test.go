package scenario_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/examples/demo/scenario"
)

// TestAnEscalatedItemResumesAfterAForce: an item its sessions escalated is
// resumed the documented way — an operator forces it back to the node it
// escalated from — and the poller launches a fresh session there, which
// finishes the node.
func TestAnEscalatedItemResumesAfterAForce(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{RelaunchMax: 1})
	require.NoError(t, l.ScriptNode("requirements-definition", "fail-runs=2"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the escalation", func() bool { return l.Node("issue-1") == "escalated" })
	require.Len(t, sessionsOf(t, l, "issue-1"), 2)

	out, err := l.Run(ctx, "graph", "force", "issue-1", "--to", "requirements-definition", "--reason", "the harness is fixed",
		"--config", l.Config, "--repo", l.Tree("issue-1"))
	require.NoError(t, err, out)
	l.Kick()
	wait(t, "the fresh session's claim", reviewRequested(l, 1, "requirements-approval"))
	sess := sessionsOf(t, l, "issue-1")
	require.Len(t, sess, 3)
	assert.Equal(t, "requirements-definition", sess[0].Node)
	assert.Equal(t, 1, sess[0].Attempt, "the relaunch count starts again after the force")
}

// TestThePollersLogIsJSONUnderLogFormatJSON: under --log-format json every
// line the poller writes is one JSON object — its own lines, the
// supervisor's session lines, the working trees' and the escalation's —
// and none is plain text.
func TestThePollersLogIsJSONUnderLogFormatJSON(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	l := newLoop(t, scenario.Options{RelaunchMax: 1, Log: log, PollArgs: []string{"--log-format", "json"}})
	require.NoError(t, l.ScriptNode("requirements-definition", "fail-runs=99"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the escalation", func() bool { return l.Node("issue-1") == "escalated" })
	l.Stop()

	var msgs []string
	for _, line := range strings.Split(strings.TrimRight(log.String(), "\n"), "\n") {
		var rec map[string]any
		if !assert.NoError(t, json.Unmarshal([]byte(line), &rec), "a line of the poller's log is not JSON: %q", line) {
			continue
		}
		assert.NotEmpty(t, rec["level"], line)
		assert.NotEmpty(t, rec["time"], line)
		msg, _ := rec["msg"].(string)
		msgs = append(msgs, msg)
		if msg == "session started" || msg == "session escalated" {
			assert.Equal(t, "issue-1", rec["workItem"], "one key for the item on every line: %s", line)
		}
	}
	for _, want := range []string{"poller started", "session started", "session escalated", "escalated: its sessions need a human", "poller stopped"} {
		assert.Contains(t, msgs, want)
	}
}
