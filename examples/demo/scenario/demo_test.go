package scenario_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/examples/demo/scenario"
	"github.com/the-loop/the-loop/internal/syncbuf"
	"github.com/the-loop/the-loop/internal/testbin"
)

var ctx = context.Background()

// syncBuffer is a log or stderr several goroutines write and the test reads.
type syncBuffer = syncbuf.Buffer

// newLoop builds the binaries and a demo loop in a fresh directory, and
// starts its poller.
func newLoop(t *testing.T, o scenario.Options) *scenario.Loop {
	t.Helper()
	o.TheLoop = testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	if o.Harness == "" {
		o.FakeHarness = testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness")
	}
	if o.FakeCritic == "" {
		o.FakeCritic = testbin.Build(t, "github.com/the-loop/the-loop/agents/critic/fakecritic")
	}
	o.Dir = t.TempDir()
	log, _ := o.Log.(*syncBuffer)
	if log == nil {
		log = &syncBuffer{}
	}
	o.Log = log
	l, err := scenario.New(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() {
		l.Close()
		if t.Failed() {
			t.Logf("poller log:\n%s", log.String())
		}
	})
	return l
}

func wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.NoError(t, scenario.WaitFor(ctx, 3*time.Minute, what, cond)) // a deadline for a loaded machine, not a timing assertion
}

func posted(l *scenario.Loop, n int, marker string) func() bool {
	return func() bool { _, ok := l.Posted(n, marker); return ok }
}

func reviewRequested(l *scenario.Loop, n int, gate string) func() bool {
	return posted(l, n, "<!-- the-loop:review-request "+gate+" -->")
}

type session struct {
	ID, WorkItem, Node, State, ExitStatus, Model, Reason, PRRepo string
	Argv                                                         []string
	Attempt, PR, PID                                             int
	Tokens                                                       int64
}

// work names what a session worked: its node, pr/<node> on the pull
// request's loop.
func (s session) work() string {
	if s.PR > 0 {
		return "pr/" + s.Node
	}
	return s.Node
}

func sessionsOf(t *testing.T, l *scenario.Loop, item string) []session {
	t.Helper()
	out, err := l.Run(ctx, "sessions", "list", "--config", l.Config, "--work-item", item, "--format", "json")
	require.NoError(t, err)
	var res struct{ Sessions []session }
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	return res.Sessions
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// lockedOnRemote reports whether the remote's history holds a commit the
// loop marked for gate whose version of file is approved.
func lockedOnRemote(t *testing.T, l *scenario.Loop, branch, gate, file string) bool {
	t.Helper()
	commits := gitOut(t, l.Remote, "log", "--format=%H", "--grep=^The-Loop-Gate: "+gate+"$", "refs/heads/"+branch)
	for _, c := range strings.Fields(commits) {
		body, err := exec.Command("git", "-C", l.Remote, "show", c+":"+file).Output()
		if err == nil && strings.Contains(string(body), "status: approved") {
			return true
		}
	}
	return false
}

const execute = "- [ ] brainstorming\n- [ ] review-chain\n- [x] model-opus-5\n\nthe-loop execute"

// TestTheLoopRunsAnItemFromStartToComplete is the scenario of the whole
// loop: an authorized person arms issue #1 and signs the phase selection
// with two phases unticked and a model chosen; the poller launches a session
// for each agent node (the scripted harness writes the node's artifact,
// commits, pushes and claims through the real `the-loop serve --work-item`
// over stdio); the person approves at the two spec gates; the
// implementation's session asks for the pull request, which the poller
// opens; the item's session works the pull request's loop node by node
// while the implementation waits on it; the reviewer briefing is posted on
// the pull request and ready-to-ship reads its green CI; the person
// approves the pull request with a review, which completes its loop and
// releases the implementation; the person approves at the final gate; the
// item completes. Those are the only human acts, every session runs the
// chosen model, and every lock is in the remote's history.
//
// The agent nodes are spread over the claude, codex, gemini and opencode
// adapters by sessions.nodes (nodeHarness), the rest run the fake's own
// command harness, so the one walk also proves every CLI adapter end to end
// (assertEveryAdapterRan).
func TestTheLoopRunsAnItemFromStartToComplete(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{Personas: true, Sessions: pinnedNodes()})
	require.NoError(t, l.Start())

	l.Say(1, "Please pick this up.\n\nthe-loop start")
	wait(t, "the phase-selection checklist", posted(l, 1, "<!-- the-loop:phase-selection -->"))
	checklist, _ := l.Posted(1, "<!-- the-loop:phase-selection -->")
	assert.Contains(t, checklist.Body, "`harness-codex`", "several harnesses: the checklist offers them")
	branch := "the-loop/issue-1-seeded-ticket"
	wait(t, "the armed item's branch on the remote", func() bool {
		return exec.Command("git", "-C", l.Remote, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Run() == nil
	})
	time.Sleep(2 * time.Second) // two more cycles: still no session before the reply
	assert.Empty(t, sessionsOf(t, l, "issue-1"), "an armed item waiting at phase selection gets no session")
	assert.NoFileExists(t, filepath.Join(l.FakeState, "issue-1.runs"))

	l.Say(1, execute)
	wait(t, "the requirements review request", reviewRequested(l, 1, "requirements-approval"))
	assert.Equal(t, "requirements-approval", l.Node("issue-1"))
	l.Say(1, "Approved.")
	wait(t, "the design review request", reviewRequested(l, 1, "design-approval"))
	l.Say(1, changeRequest)
	wait(t, "the design's second review request", requestedTimes(l, 1, "design-approval", 2))
	assert.Contains(t, gitOut(t, l.Remote, "show", "refs/heads/"+branch+":docs/specs/issue-1/design.md"), "an empty report exports its header row only",
		"the design's second visit answered the change request")
	l.Say(1, "Approved.")
	wait(t, "the pull request the implementation asked for", func() bool { return l.PullRequest("issue-1") > 0 })
	pr := l.PullRequest("issue-1")
	wait(t, "the pull request's review request", reviewRequested(l, pr, "pr-approval"))
	assertCIFixRound(t, l, pr)
	briefing := 0
	for _, c := range l.Comments(pr) {
		if strings.Contains(c.Body, "<!-- the-loop:pr-briefing -->") {
			briefing++
			assert.Contains(t, c.Body, "```mermaid")
			assert.Equal(t, l.GitHub.BotLogin(), c.Author)
		}
	}
	assert.Equal(t, 1, briefing, "the reviewer briefing is one comment on the pull request")
	body, _ := l.GitHub.PullBody(scenario.Repo, pr)
	assert.Contains(t, body, "Closes #1")
	assert.Equal(t, "implementation", l.Node("issue-1"), "the implementation waits on the pull request's loop")
	l.Approve(pr, "Looks right.")
	wait(t, "the final review request", reviewRequested(l, 1, "human-approval"))
	l.Say(1, "Approved.")
	wait(t, "the item to complete", func() bool { return l.Node("issue-1") == "complete" })
	wait(t, "the completed record on the remote", func() bool {
		out, err := exec.Command("git", "-C", l.Remote, "show", "refs/heads/"+branch+":docs/specs/issue-1/work-item-state.json").Output()
		return err == nil && strings.Contains(string(out), `"currentNode": "complete"`)
	})
	wait(t, "the status comment to say so", func() bool {
		c, ok := l.Posted(1, "<!-- the-loop:status -->")
		return ok && strings.Contains(c.Body, "`complete`")
	})
	out, err := l.CheckClone(ctx, branch)
	require.NoError(t, err, "a fresh clone of the remote verifies the record with the committed public key alone")
	assert.Contains(t, out, "issue-1")

	sess := sessionsOf(t, l, "issue-1")
	var nodes []string
	for i := len(sess) - 1; i >= 0; i-- {
		s := sess[i]
		nodes = append(nodes, s.work())
		assert.Equal(t, "opus-5", s.Model, s.ID)
		assert.Contains(t, []string{"exited", "stopped"}, s.State, "%s ended: %s", s.ID, s.Reason)
		assert.Positive(t, s.Tokens, "usage is read from the transcript")
	}
	assert.Equal(t, scenario.AgentNodes, nodes, "one session per agent node and visit, in walk order, none relaunched")
	assertEveryAdapterRan(t, l) // each launched argv carries its adapter's flags and the chosen model

	for _, lock := range []struct{ gate, file string }{
		{"requirements-approval", "docs/specs/issue-1/requirements.md"},
		{"design-approval", "docs/specs/issue-1/design.md"},
		{"design-approval", "docs/specs/issue-1/testing-plan.md"},
	} {
		assert.True(t, lockedOnRemote(t, l, branch, lock.gate, lock.file), "%s's lock of %s is in the remote's history", lock.gate, lock.file)
	}
	record := gitOut(t, l.Remote, "show", "refs/heads/"+branch+":docs/specs/issue-1/work-item-state.json")
	assert.Contains(t, record, `"currentNode": "complete"`, "the portable record is pushed")
	for _, node := range []string{"implementation", "verification"} {
		ev := gitOut(t, l.Remote, "show", "refs/heads/"+branch+":docs/specs/issue-1/evidence/tests-"+node+".md")
		assert.Contains(t, ev, "working directory: "+l.Tree("issue-1"), "%s ran the repository's commands in the item's working tree", node)
		assert.Contains(t, ev, "ok  every task is done")
		assert.Contains(t, ev, "| lint |")
	}

	var human []string
	for _, c := range l.Comments(1) {
		if c.Author != l.GitHub.BotLogin() {
			human = append(human, c.Body)
		}
	}
	assert.Equal(t, []string{"Please pick this up.\n\nthe-loop start", execute, "Approved.", changeRequest, "Approved.", "Approved."}, human,
		"the only human acts are arming, the selection and the gates")
	var status []string
	for _, c := range l.Comments(1) {
		if strings.Contains(c.Body, "<!-- the-loop:status -->") {
			status = append(status, c.Body)
		}
	}
	require.Len(t, status, 1, "one status comment, edited in place")
	assert.Contains(t, status[0], "`complete`")
}

// changeRequest is what the human asks of the design once.
const changeRequest = "Changes requested: say what the export of an empty report holds."

// requestedTimes reports whether gate asked for a review on issue n at
// least times times (once per visit).
func requestedTimes(l *scenario.Loop, n int, gate string, times int) func() bool {
	marker := "<!-- the-loop:review-request " + gate + " -->"
	return func() bool {
		seen := 0
		for _, c := range l.Comments(n) {
			if c.Author == l.GitHub.BotLogin() && strings.Contains(c.Body, marker) {
				seen++
			}
		}
		return seen >= times
	}
}

// assertCIFixRound: the repository's CI failed on the pull request once;
// its loop went back to implementation with what CI said, spending no
// attempt; the fix session's prompt quoted the failing check's annotation
// and the end of its job's log; CI passed on the fix.
func assertCIFixRound(t *testing.T, l *scenario.Loop, pr int) {
	t.Helper()
	rounds := l.FixRounds("issue-1", pr)
	require.Len(t, rounds, 1, "CI failed once")
	assert.Equal(t, "ci-failed", rounds[0]["reason"])
	inner := l.Inner("issue-1", pr)
	nodes, _ := inner["nodes"].(map[string]any)
	rb, _ := nodes["reviewer-briefing"].(map[string]any)
	assert.Equal(t, float64(0), rb["attempts"], "no attempt was spent while CI ran or failed")
	assert.Equal(t, float64(2), rb["entries"], "reviewer-briefing ran twice: red, then green")
	var fix string
	for _, s := range sessionsOf(t, l, "issue-1") {
		if p, err := l.Prompt(s.ID); err == nil && strings.Contains(p, "CI failed on pull request") {
			fix = p
		}
	}
	require.NotEmpty(t, fix, "a session was told CI failed")
	for _, want := range []string{
		"#### check build — failure on octo/widgets#" + strconv.Itoa(pr),
		"Annotations (1):\n  - export/csv.sh:4 (failure) a cell starting with @ leaves unquoted: a spreadsheet runs it as a formula",
		"FAIL  @SUM(A1) leaves as @SUM(A1), want '@SUM(A1)",
		"##[error]Process completed with exit code 1.\n```",
	} {
		assert.Contains(t, fix, want)
	}
	assert.NotContains(t, fix, "Post job cleanup.", "the log's tail ends at its error line")
	head := gitOut(t, l.Remote, "rev-parse", "refs/heads/the-loop/issue-1-seeded-ticket")
	code := gitOut(t, l.Remote, "show", head+":export/csv.sh")
	assert.Contains(t, code, "=*|+*|-*|@*)", "the fix session's code quotes @ too")
}

// TestASessionKilledMidNodeIsRelaunched: the first session of a node is
// killed while it works; the poller relaunches it after the backoff, and
// the second attempt finishes the node.
func TestASessionKilledMidNodeIsRelaunched(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{})
	require.NoError(t, l.ScriptNode("requirements-definition", "hang-runs=1"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	pidFile := filepath.Join(l.FakeState, "issue-1.run-1.ready")
	wait(t, "the first session at work", func() bool { _, err := os.Stat(pidFile); return err == nil })
	// The session's process on this host is the one its record names (the
	// harness's own pid file holds its pid inside the session's namespace).
	running := sessionsOf(t, l, "issue-1")
	require.Len(t, running, 1)
	require.Greater(t, running[0].PID, 1)
	require.NoError(t, exec.Command("kill", "-KILL", strconv.Itoa(running[0].PID)).Run())

	wait(t, "the relaunched session's claim", reviewRequested(l, 1, "requirements-approval"))
	var sess []session
	wait(t, "both sessions recorded as ended", func() bool {
		sess = sessionsOf(t, l, "issue-1")
		return len(sess) == 2 && sess[0].State != "running" && sess[1].State != "running"
	})
	require.Len(t, sess, 2)
	killed, relaunched := sess[1], sess[0]
	assert.Equal(t, "killed by SIGKILL", killed.ExitStatus)
	assert.Equal(t, 1, killed.Attempt)
	assert.Equal(t, "requirements-definition", relaunched.Node)
	assert.Equal(t, 2, relaunched.Attempt)
	assert.Contains(t, []string{"exited", "stopped"}, relaunched.State)
}

// TestASessionThatChangesNothingIsRelaunchedOnceThenEscalates: every
// session of the node exits with nothing committed; the first is relaunched
// once, the next session's prompt saying so, and the second escalates the
// item through the engine — whatever relaunch.max still allows — with the
// reason, and no further session is launched.
func TestASessionThatChangesNothingIsRelaunchedOnceThenEscalates(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{RelaunchMax: 5})
	require.NoError(t, l.ScriptNode("requirements-definition", "fail-runs=99"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the escalation", func() bool { return l.Node("issue-1") == "escalated" })
	esc, _ := l.StateOf("issue-1")["escalation"].(map[string]any)
	require.NotNil(t, esc)
	assert.Equal(t, "requirements-definition", esc["from"])
	assert.Contains(t, esc["reason"], "the session for requirements-definition ended 2 times in a row without a commit (last: exit 1); "+
		"a session that changes nothing is relaunched once, then the item escalates")
	sess := sessionsOf(t, l, "issue-1")
	require.Len(t, sess, 2, "relaunched once")
	first, second := sess[1], sess[0]
	p, err := l.Prompt(second.ID)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(p, "The previous session for requirements-definition ("+first.ID+", exit 1) ended without a commit: nothing it did reached the branch."),
		"the relaunched session is told: %.200s", p)
	time.Sleep(2 * time.Second)
	assert.Len(t, sessionsOf(t, l, "issue-1"), 2, "nothing more is launched for an escalated item")
	out, err := l.Run(ctx, "graph", "status", "issue-1", "--config", l.Config, "--repo", l.Tree("issue-1"))
	require.NoError(t, err)
	assert.Contains(t, out, "ESCALATED from requirements-definition: the session for requirements-definition ended 2 times in a row without a commit")
	wait(t, "the status comment to say so", func() bool {
		c, ok := l.Posted(1, "<!-- the-loop:status -->")
		return ok && strings.Contains(c.Body, "`escalated`")
	})
}

// TestTwoItemsRunAtOnceInSeparateTrees: two items armed together get a
// session each at once, each in its own working tree on its own branch.
func TestTwoItemsRunAtOnceInSeparateTrees(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{})
	second := l.GitHub.SeedIssue("Second ticket", nil, true)
	require.Equal(t, 2, second.Number)
	require.NoError(t, l.Start())
	for _, n := range []int{1, 2} {
		l.Say(n, "the-loop start")
	}
	for _, n := range []int{1, 2} {
		wait(t, "the checklists", posted(l, n, "<!-- the-loop:phase-selection -->"))
	}
	for _, n := range []int{1, 2} {
		l.Say(n, execute)
	}
	for _, n := range []int{1, 2} {
		wait(t, "both claims", reviewRequested(l, n, "requirements-approval"))
	}
	a, b := sessionsOf(t, l, "issue-1"), sessionsOf(t, l, "issue-2")
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	assert.NotEqual(t, l.Tree("issue-1"), l.Tree("issue-2"))
	assert.FileExists(t, filepath.Join(l.Tree("issue-1"), "docs/specs/issue-1/requirements.md"))
	assert.NoFileExists(t, filepath.Join(l.Tree("issue-1"), "docs/specs/issue-2/requirements.md"), "items never share files")
	assert.NoFileExists(t, filepath.Join(l.Tree("issue-2"), "docs/specs/issue-1/requirements.md"))
	files := gitOut(t, l.Remote, "ls-tree", "-r", "--name-only", "refs/heads/the-loop/issue-2-second-ticket")
	assert.Contains(t, files, "docs/specs/issue-2/requirements.md")
	assert.NotContains(t, files, "docs/specs/issue-1/", "items never share a branch")
}

// TestASessionCannotReachAnotherItemOrPostAHandoff: through its own MCP
// server, a session's attempts to read or claim another item, to post a
// handoff or to open a ticket are all refused.
func TestASessionCannotReachAnotherItemOrPostAHandoff(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{})
	require.NoError(t, l.ScriptNode("requirements-definition", "probe"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	probe := filepath.Join(l.FakeState, "issue-1.probe-1.json")
	wait(t, "the probe", func() bool { _, err := os.Stat(probe); return err == nil })
	b, err := os.ReadFile(probe)
	require.NoError(t, err)
	var answers map[string]struct {
		IsError bool
		Text    string
		Error   string
	}
	require.NoError(t, json.Unmarshal(b, &answers))
	for _, tool := range []string{"graph_status", "graph_complete"} {
		require.Contains(t, answers, tool)
		assert.True(t, answers[tool].IsError, "%s must be refused: %s", tool, answers[tool].Text)
		assert.Contains(t, answers[tool].Text, "work item issue-1 (the-loop serve --work-item)", tool)
		assert.Contains(t, answers[tool].Text, "refused", tool)
	}
	for _, tool := range []string{"handoff_post", "ticket_create"} {
		assert.Contains(t, answers[tool].Error, "not found", "the session's server does not serve %s at all", tool)
	}
	assert.Contains(t, answers["graph_status"].Text, "never issue-999")
	assert.NotContains(t, strings.Join(commentBodies(l, 1), "\n"), "the-loop:handoff", "no handoff record reached the ticket")
}

func commentBodies(l *scenario.Loop, n int) []string {
	var out []string
	for _, c := range l.Comments(n) {
		out = append(out, c.Body)
	}
	return out
}

// TestNoPollerSecretReachesASession: the poller runs with the tracker
// token, the signing key, systemd's credentials directory, a Slack webhook
// and the MCP bearer token in its environment, and a signing key file in
// its config; the launched session's environment, argv and MCP config hold
// none of them.
func TestNoPollerSecretReachesASession(t *testing.T) {
	creds := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(creds, "SOME_PASSWORD"), []byte("credential-value-0042"), 0o600))
	secrets := map[string]string{
		"THE_LOOP_SIGNING_KEY":  "hmac-signing-secret-0042",
		"CREDENTIALS_DIRECTORY": creds,
		"SLACK_WEBHOOK_URL":     "https://hooks.example.invalid/T000/B000/secret0042",
		"THE_LOOP_MCP_TOKEN":    "mcp-bearer-secret-0042",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-0042",
	}
	t.Parallel()
	l := newLoop(t, scenario.Options{Env: secrets})
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	dump := filepath.Join(l.FakeState, "issue-1.env-1")
	wait(t, "the session's environment dump", func() bool { _, err := os.Stat(dump); return err == nil })
	wait(t, "the claim", reviewRequested(l, 1, "requirements-approval"))
	env, err := os.ReadFile(dump)
	require.NoError(t, err)
	args, err := os.ReadFile(filepath.Join(l.FakeState, "issue-1.args-1"))
	require.NoError(t, err)
	sess := sessionsOf(t, l, "issue-1")
	require.NotEmpty(t, sess)
	mcpConfig, err := os.ReadFile(filepath.Join(l.State, "sessions", sess[0].ID, "box", "mcp.json"))
	require.NoError(t, err)
	values := []string{l.GitHub.Token(), filepath.Join(l.Home, "signing.key"), creds}
	names := []string{"GITHUB_TOKEN", "CREDENTIALS_DIRECTORY"}
	for name, v := range secrets {
		values, names = append(values, v), append(names, name)
	}
	for _, where := range []struct{ what, text string }{{"environment", string(env)}, {"argv", string(args)},
		{"MCP config", string(mcpConfig)}, {"recorded argv", strings.Join(sess[0].Argv, " ")}} {
		for _, v := range values {
			assert.NotContains(t, where.text, v, "the session's %s carries a secret value", where.what)
		}
		for _, n := range names {
			assert.NotContains(t, where.text, n+"=", "the session's %s carries %s", where.what, n)
		}
	}
	assert.Contains(t, string(env), "THE_LOOP_WORK_ITEM=issue-1\n", "what a session does get")
	assert.Contains(t, string(env), "THE_LOOP_NODE=requirements-definition\n")
}

// TestAnItemOverItsBudgetEscalatesWithTheFigures: the item's sessions
// together spend past sessions.budget.tokens; no further session is
// launched, and the item escalates with the figures.
func TestAnItemOverItsBudgetEscalatesWithTheFigures(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{Sessions: "budget:\n  tokens: 2000\n"})
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the requirements review request", reviewRequested(l, 1, "requirements-approval"))
	l.Say(1, "Approved.")
	wait(t, "the escalation", func() bool { return l.Node("issue-1") == "escalated" })
	esc, _ := l.StateOf("issue-1")["escalation"].(map[string]any)
	require.NotNil(t, esc)
	// The design session takes the item past 2000 tokens: it is stopped when
	// the supervisor sees its figures, or — had it finished first — the next
	// launch is refused.
	assert.Contains(t, []any{"design", "test-planning"}, esc["from"])
	// A session stopped before its result event reported no cost: the
	// figures say so rather than count it as $0.
	assert.Regexp(t, `is over its session budget: \d+ tokens of 2000 allowed \(spent: \d+ turns, \d+ tokens, \$0\.\d\d( and the cost of 1 session\(s\) unknown)?\)`, esc["reason"])
	time.Sleep(2 * time.Second)
	assert.LessOrEqual(t, len(sessionsOf(t, l, "issue-1")), 2, "no session past the budget")
}

func markerComments(l *scenario.Loop, n int, marker string) []string {
	var out []string
	for _, b := range commentBodies(l, n) {
		if strings.Contains(b, marker) {
			out = append(out, b)
		}
	}
	return out
}

// TestPauseStopsLaunchesUntilResume: `the-loop pause` on the ticket ends
// the item's session once its drain time passes and launches none while
// paused; `the-loop resume` launches again.
func TestPauseStopsLaunchesUntilResume(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{})
	require.NoError(t, l.ScriptNode("requirements-definition", "hang-runs=1"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the first session at work", func() bool {
		_, err := os.Stat(filepath.Join(l.FakeState, "issue-1.run-1.ready"))
		return err == nil
	})
	l.Say(1, "the-loop pause")
	wait(t, "the paused item's session to stop", func() bool {
		s := sessionsOf(t, l, "issue-1")
		return len(s) == 1 && s[0].State == "stopped"
	})
	time.Sleep(2 * time.Second)
	assert.Len(t, sessionsOf(t, l, "issue-1"), 1, "nothing is launched while the item is paused")
	wait(t, "the status comment to say so", func() bool {
		c, ok := l.Posted(1, "<!-- the-loop:status -->")
		return ok && strings.Contains(c.Body, "the-loop resume")
	})
	l.Say(1, "the-loop resume")
	wait(t, "the claim after resuming", reviewRequested(l, 1, "requirements-approval"))
	assert.Len(t, sessionsOf(t, l, "issue-1"), 2)
}

// TestAnOperatorStopsASessionAndTakesTheWorkOver: `the-loop sessions stop`
// ends a running session and holds its item on its node — no relaunch —
// until a human claims the node by hand; then the loop goes on.
func TestAnOperatorStopsASessionAndTakesTheWorkOver(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{})
	require.NoError(t, l.ScriptNode("requirements-definition", "hang-runs=9"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	var id string
	wait(t, "a running session", func() bool {
		s := sessionsOf(t, l, "issue-1")
		if len(s) == 1 && s[0].State == "running" {
			id = s[0].ID
		}
		return id != ""
	})
	// Stopped before the harness printed its first event, the session would
	// leave no transcript (and no resume command) to read: on a loaded
	// machine a running session may not have printed yet.
	wait(t, "the session's first event in its transcript", func() bool {
		logs, err := l.Run(ctx, "sessions", "logs", id, "--config", l.Config)
		return err == nil && strings.Contains(logs, `"type":"system"`)
	})
	out, err := l.Run(ctx, "sessions", "stop", id, "--reason", "taking it over by hand", "--actor", "carol", "--config", l.Config)
	l.Kick()
	require.NoError(t, err)
	assert.Contains(t, out, "stop of "+id+" requested")
	taken := "issue-1 is taken over on requirements-definition: operator carol stopped session " + id + " (taking it over by hand, "
	assert.Contains(t, out, taken)
	wait(t, "the session to stop", func() bool { s := sessionsOf(t, l, "issue-1"); return s[0].State == "stopped" })
	assert.Equal(t, "taking it over by hand", sessionsOf(t, l, "issue-1")[0].Reason)
	time.Sleep(3 * time.Second) // past the relaunch backoff
	assert.Len(t, sessionsOf(t, l, "issue-1"), 1, "a held item is not relaunched")
	wait(t, "the status comment to say who holds it", func() bool {
		c, ok := l.Posted(1, "<!-- the-loop:status -->")
		return ok && strings.Contains(c.Body, taken)
	})
	status, err := l.Run(ctx, "graph", "status", "issue-1", "--config", l.Config, "--repo", l.Tree("issue-1"))
	require.NoError(t, err)
	assert.Contains(t, status, "TAKEN OVER: "+taken)
	_, err = l.Run(ctx, "sessions", "stop", id, "--reason", "again", "--config", l.Config)
	assert.ErrorContains(t, err, "is not running")

	tree := l.Tree("issue-1")
	require.NoError(t, os.WriteFile(filepath.Join(tree, "docs/specs/issue-1/requirements.md"), []byte(
		"# Requirements\n\n## Requirements\n\n- R1: written by hand.\n\n## Security considerations\n\nNo new trust boundary: the change is local.\n"), 0o644))
	_, err = l.Run(ctx, "graph", "complete", "issue-1", "--config", l.Config, "--repo", tree)
	require.NoError(t, err)
	wait(t, "the gate after the human's claim", reviewRequested(l, 1, "requirements-approval"))
	logs, err := l.Run(ctx, "sessions", "logs", id, "--config", l.Config)
	require.NoError(t, err)
	assert.Contains(t, logs, `"type":"system"`, "the transcript is there to read")
	show, err := l.Run(ctx, "sessions", "show", id, "--config", l.Config)
	require.NoError(t, err)
	assert.Contains(t, show, "state:       stopped")
	assert.Contains(t, show, "resume:      cd "+tree+" && "+testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness")+" --resume fake-issue-1-1", "a harness printing Claude Code's stream-json resumes as Claude Code does")
}

// TestRunDrivesOneItemToTheNextHumanGate: without the poller, `the-loop
// run` launches the session of the current agent node in the developer's
// checkout, acts on the claim, and stops at the next human gate saying
// what it waits for and where.
func TestRunDrivesOneItemToTheNextHumanGate(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{})
	_, err := l.Run(ctx, "graph", "start", "issue-1", "--config", l.Config, "--repo", l.Checkout, "--ref", "github:octo/widgets#1")
	require.NoError(t, err)
	wait(t, "the checklist", posted(l, 1, "<!-- the-loop:phase-selection -->"))

	out, err := l.Run(ctx, "run", "issue-1", "--config", l.Config, "--repo", l.Checkout)
	require.NoError(t, err)
	assert.Contains(t, out, "issue-1 stopped at phase-selection; it waits for an authorized `the-loop execute` reply")
	assert.Contains(t, out, "— on "+strings.TrimSuffix(l.GitHub.URL(), "api/v3/"), "where: the ticket's URL")

	l.Say(1, execute)
	out, err = l.Run(ctx, "run", "issue-1", "--config", l.Config, "--repo", l.Checkout)
	require.NoError(t, err)
	assert.Contains(t, out, "requirements-definition: session started")
	assert.Contains(t, out, "requirements-approval: entered")
	assert.Contains(t, out, "issue-1 stopped at requirements-approval; it waits for an authorized reply at requirements-approval: `approved`, `approved with comments` (and what), or `changes requested` (and what) — on ")
	_, ok := l.Posted(1, "<!-- the-loop:review-request requirements-approval -->")
	assert.True(t, ok, "the review request the claim left was posted by run")
	assert.FileExists(t, filepath.Join(l.Checkout, "docs/specs/issue-1/requirements.md"), "the session worked in the checkout itself")

	l.Say(1, "the-loop pause")
	l.Say(1, "Approved.")
	out, err = l.Run(ctx, "run", "issue-1", "--config", l.Config, "--repo", l.Checkout)
	require.NoError(t, err)
	assert.Contains(t, out, "issue-1 stopped at requirements-approval; it waits for a human: issue-1 is paused: @"+scenario.Human+" paused it on the ticket (",
		"run asks the launch rule the poller asks")
	assert.Contains(t, out, "an authorized user lifts it by commenting `the-loop resume` on the ticket")
	assert.Len(t, sessionsOf(t, l, "issue-1"), 1)
	out, err = l.Run(ctx, "graph", "advance", "issue-1", "--config", l.Config, "--repo", l.Checkout)
	assert.Error(t, err, "a refused advance exits 1")
	assert.Contains(t, out, "issue-1 is paused: @"+scenario.Human, "run recorded the hold, so every act refuses it")
}

// startAndExecute arms issue n with an authorized start, waits for its
// checklist and answers it with the execute reply every scenario uses.
func startAndExecute(t *testing.T, l *scenario.Loop, n int) {
	t.Helper()
	l.Say(n, "the-loop start")
	wait(t, "the checklist", posted(l, n, "<!-- the-loop:phase-selection -->"))
	l.Say(n, execute)
}
