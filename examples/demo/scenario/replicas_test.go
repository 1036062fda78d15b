package scenario_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/examples/demo/scenario"
	"github.com/the-loop/the-loop/store"
	"github.com/the-loop/the-loop/store/storetest"
)

const (
	hookSecret = "multi-hook-secret-0123456789"
	mcpToken   = "multi-mcp-token-0123456789abcdef"
	// replicaConfig turns on the HTTP MCP endpoint and GitHub's webhooks.
	replicaConfig = "mcp:\n  http:\n    tokenEnv: LOOP_MCP_TOKEN\nwebhooks:\n  github:\n    secretEnv: GH_HOOK_SECRET\n"
)

// team is a team deployment on one machine: the loop's fake GitHub, remote
// and scripted agent, one PostgreSQL store, and two hosts, each running a
// poller and a serve --http replica.
type team struct {
	l          *scenario.Loop
	st         *store.Store
	hostA      *scenario.Replica
	hostB      *scenario.Replica
	pollA      *scenario.Process
	pollB      *scenario.Process
	httpA      *scenario.Process
	httpB      *scenario.Process
	leaseTTL   time.Duration
	procs      []*scenario.Process
	deliveries int
}

func newTeam(t *testing.T, lease time.Duration, gatesOnly bool) *team {
	t.Helper()
	if why := scenario.CanRunReplicas(); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI runs the team tests as root", why)
		}
		t.Skipf("team tests skipped: %s", why)
	}
	pg := storetest.TempPostgres(t)
	tm := &team{leaseTTL: lease}
	tm.l = newLoop(t, scenario.Options{GatesOnly: gatesOnly, StoreURL: pg, LeaseSeconds: int(lease / time.Second), Config: replicaConfig,
		Env: map[string]string{"GH_HOOK_SECRET": hookSecret, "LOOP_MCP_TOKEN": mcpToken}})
	st, err := store.Open(ctx, pg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	tm.st = st
	tm.hostA, err = tm.l.NewReplica(ctx, "a")
	require.NoError(t, err)
	tm.hostB, err = tm.l.NewReplica(ctx, "b")
	require.NoError(t, err)
	t.Cleanup(func() {
		dir := os.Getenv("THE_LOOP_REPLICA_LOGS") // full logs for a failure's diagnosis
		for i, p := range tm.procs {
			p.Stop()
			if t.Failed() {
				t.Logf("process %d:\n%s", p.PID(), tail(p.Log(), 40))
				if dir != "" {
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%d.log", i, p.PID())), []byte(p.Log()), 0o644)
				}
			}
		}
	})
	return tm
}

// run keeps p until the test ends (stopped then, its log shown on failure).
func (tm *team) run(t *testing.T) func(*scenario.Process, error) *scenario.Process {
	return func(p *scenario.Process, err error) *scenario.Process {
		t.Helper()
		require.NoError(t, err)
		tm.procs = append(tm.procs, p)
		return p
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// deliver posts a signed issue_comment delivery for issue n to the replica
// at base and returns the answer.
func (tm *team) deliver(t *testing.T, base string, n int) string {
	t.Helper()
	tm.deliveries++
	body := fmt.Sprintf(`{"action":"created","issue":{"number":%d},"comment":{"body":"…"},"repository":{"full_name":"octo/widgets"},"sender":{"login":%q}}`, n, scenario.Human)
	req, err := http.NewRequest(http.MethodPost, base+"/webhooks/github", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("delivery-%d", tm.deliveries))
	m := hmac.New(sha256.New, []byte(hookSecret))
	m.Write([]byte(body))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(b))
	return string(b)
}

// launchSessions seeds issues 2..n beside the first, starts both pollers
// and host B's server, waits for every checklist, then executes each item
// with its webhook delivered to B: both pollers launch the items' sessions.
func (tm *team) launchSessions(t *testing.T, n int) {
	t.Helper()
	for i := 2; i <= n; i++ {
		tm.l.GitHub.SeedIssue(fmt.Sprintf("Ticket %d", i), nil, true)
	}
	for i := 1; i <= n; i++ {
		tm.l.GitHub.AddComment(scenario.Ref(i), scenario.Human, "OWNER", "the-loop start")
	}
	tm.pollA = tm.run(t)(tm.hostA.Poll())
	tm.pollB = tm.run(t)(tm.hostB.Poll())
	tm.httpB = tm.run(t)(tm.hostB.Serve())
	wait(t, "every checklist", func() bool { return tm.checklists(n) == n })
	for i := 1; i <= n; i++ {
		tm.l.GitHub.AddComment(scenario.Ref(i), scenario.Human, "OWNER", execute)
		tm.deliver(t, tm.httpB.URL, i)
	}
}

// markers counts the loop's comments on issue n by their marker (the
// first HTML comment of the body), beside the comments it posted by the
// fake's request log.
func (tm *team) markers(n int) (map[string]int, int) {
	byMarker := map[string]int{}
	re := regexp.MustCompile(`<!-- the-loop:[^>]*-->`)
	for _, c := range tm.l.Comments(n) {
		if c.Author != tm.l.GitHub.BotLogin() {
			continue
		}
		byMarker[re.FindString(c.Body)]++
	}
	posts := 0
	path := fmt.Sprintf("/api/v3/repos/octo/widgets/issues/%d/comments", n)
	for _, r := range tm.l.GitHub.Requests() {
		if r.Method == http.MethodPost && r.Path == path && r.Status < 300 {
			posts++
		}
	}
	return byMarker, posts
}

func (tm *team) checklists(n int) int {
	total := 0
	for i := 1; i <= n; i++ {
		if _, ok := tm.l.Posted(i, "<!-- the-loop:phase-selection -->"); ok {
			total++
		}
	}
	return total
}

// events are the store's events named exactly name.
func (tm *team) events(t *testing.T, name string) []store.Event {
	t.Helper()
	evs, err := tm.st.EventsNamed(ctx, name)
	require.NoError(t, err)
	var out []store.Event
	for _, e := range evs {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func itemRef(n int) string { return fmt.Sprintf("github:octo/widgets#%d", n) }

// decidedAt is when issue n's phase selection was decided (the store's
// graph.decision event), or the zero time.
func (tm *team) decidedAt(t *testing.T, n int) time.Time {
	t.Helper()
	evs, err := tm.st.Events(ctx, tm.repo(t), fmt.Sprintf("issue-%d", n))
	require.NoError(t, err)
	for _, e := range evs {
		if e.Name == "graph.decision" {
			at, err := time.Parse(time.RFC3339Nano, e.At)
			require.NoError(t, err)
			return at
		}
	}
	return time.Time{}
}

// repo is the repository key the items are stored under.
func (tm *team) repo(t *testing.T) string {
	t.Helper()
	evs := tm.events(t, "graph.started")
	require.NotEmpty(t, evs)
	return evs[0].Repo
}

// assertPostedOnce checks, for issues 1..n, that every comment the loop
// posted is there once, and posted by one request.
func (tm *team) assertPostedOnce(t *testing.T, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		byMarker, posts := tm.markers(i)
		total := 0
		for m, c := range byMarker {
			assert.Equal(t, 1, c, "issue #%d: the comment %s is posted once", i, m)
			total += c
		}
		assert.Equal(t, total, posts, "issue #%d: every comment the loop posted is one POST", i)
	}
}

// assertDecidedOnce checks that issues 1..n had their phase selection
// decided once each, and nothing else was decided.
func (tm *team) assertDecidedOnce(t *testing.T, n int) {
	t.Helper()
	decisions := map[string]int{}
	for _, e := range tm.events(t, "graph.decision") {
		decisions[e.WorkItem+" "+e.Node]++
	}
	for i := 1; i <= n; i++ {
		assert.Equal(t, 1, decisions[fmt.Sprintf("issue-%d phase-selection", i)], "issue-%d's phase selection is decided once", i)
	}
	assert.Len(t, decisions, n, "nothing else was decided")
}

// mcp sends one JSON-RPC message to the MCP endpoint at base, in session
// id ("" to open one), and returns the status, the session id it answered
// with and the body.
func mcp(t *testing.T, method, base, id, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+mcpToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// TestATeamOnPostgreSQLWorksEveryItemOnceWhenAPollerDies runs the team
// deployment with real processes: two hosts, each with a `the-loop poll`
// and a `the-loop serve --http`, on one PostgreSQL store, 200 issues armed
// on the fake GitHub (the gates only: no harness). Host A's poller is
// SIGKILLed mid-cycle; host B's takes its items over within one lease; A
// comes back. Every item's phase selection is then answered, each reply
// delivered by webhook to one replica or the other. Counted from the fake's
// request log and the store: every comment is posted once, every decision
// recorded once. An MCP HTTP session opened on replica A goes on on
// replica B. Last, with both pollers on an hour's interval, a reply
// delivered by webhook is decided in about one idle cycle.
func TestATeamOnPostgreSQLWorksEveryItemOnceWhenAPollerDies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two pollers and two replicas on PostgreSQL with 200 items: not in -short")
	}
	const n, timed = 200, 5
	tm := newTeam(t, 3*time.Second, true)
	for i := 2; i <= n; i++ {
		tm.l.GitHub.SeedIssue(fmt.Sprintf("Ticket %d", i), nil, true)
	}
	for i := 1; i <= n; i++ {
		tm.l.GitHub.AddComment(scenario.Ref(i), scenario.Human, "OWNER", "the-loop start")
	}

	start := time.Now()
	tm.pollA = tm.run(t)(tm.hostA.Poll())
	tm.pollB = tm.run(t)(tm.hostB.Poll())
	tm.httpA = tm.run(t)(tm.hostA.Serve())
	tm.httpB = tm.run(t)(tm.hostB.Serve())

	// An MCP session opened on replica A goes on on replica B.
	code, sid, body := mcp(t, http.MethodPost, tm.httpA.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Equal(t, http.StatusOK, code, body)
	require.NotEmpty(t, sid)
	code, _, body = mcp(t, http.MethodPost, tm.httpB.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "graph_status", "replica B serves the session replica A opened")
	// B logs it as it answers; its stderr reaches the test through a pipe.
	wait(t, "replica B's log of the session it took up", func() bool {
		return strings.Contains(tm.httpB.Log(), "took up a session another replica started")
	})

	// A dies mid-cycle, once a quarter of the checklists are out.
	wait(t, "a quarter of the checklists", func() bool { return tm.checklists(n) >= n/4 })
	tm.pollA.Kill()
	killed := time.Now()
	heldByA := 0
	for i := 1; i <= n; i++ {
		l, ok, err := tm.st.LeaseOf(ctx, itemRef(i))
		require.NoError(t, err)
		if ok && strings.Contains(l.Owner, fmt.Sprintf("/%d/", tm.pollA.PID())) && l.Expires.After(killed) {
			heldByA++
		}
	}
	require.Positive(t, heldByA, "poller A held items when it died")
	t.Logf("poller A killed %s after the start, holding %d items (%d checklists out)", killed.Sub(start).Round(time.Millisecond), heldByA, tm.checklists(n))

	if err := scenario.WaitFor(ctx, 3*time.Minute, "every checklist", func() bool { return tm.checklists(n) == n }); err != nil {
		t.Fatalf("%v (%d out); host b's last cycle: %s", err, tm.checklists(n), actions(t, tm.hostB))
	}
	wait(t, "every item of A taken over", func() bool { return len(tm.events(t, "lease.taken_over")) >= heldByA })
	var last time.Duration
	for _, e := range tm.events(t, "lease.taken_over") {
		at, err := time.Parse(time.RFC3339Nano, e.At)
		require.NoError(t, err)
		assert.Contains(t, string(e.Data), fmt.Sprintf("/%d/", tm.pollA.PID()), "only the dead poller's items are taken over")
		last = max(last, at.Sub(killed))
	}
	cycle := longestCycle(t, tm.pollB)
	t.Logf("the last of A's %d items was taken over %s after the kill (lease %s, B's longest cycle %s)", heldByA, last.Round(time.Millisecond), tm.leaseTTL, cycle)
	assert.Less(t, last, tm.leaseTTL+cycle+2*time.Second, "A's items are handed over within one lease, at B's first cycle after it ran out")

	// Host A comes back, a new instance.
	tm.pollA = tm.run(t)(tm.hostA.Poll())

	// Every item but the timed ones is answered; each reply is delivered
	// to one replica or the other.
	for i := 1; i <= n-timed; i++ {
		tm.l.GitHub.AddComment(scenario.Ref(i), scenario.Human, "OWNER", execute)
		base := tm.httpA.URL
		if i%2 == 0 {
			base = tm.httpB.URL
		}
		tm.deliver(t, base, i)
	}
	wait(t, "every answered item decided", func() bool {
		return len(tm.events(t, "graph.decision")) >= n-timed
	})

	// The pollers restart on an hour's interval: what is decided now is
	// decided because a delivery woke the poller holding the item.
	tm.pollA.Stop()
	tm.pollB.Stop()
	require.NoError(t, os.Remove(tm.hostA.Files(tm.hostA.Heartbeat())))
	require.NoError(t, os.Remove(tm.hostB.Files(tm.hostB.Heartbeat())))
	tm.pollA = tm.run(t)(tm.hostA.Poll("--interval", "1h"))
	tm.pollB = tm.run(t)(tm.hostB.Poll("--interval", "1h"))
	wait(t, "both pollers' first cycle", func() bool {
		_, errA := os.Stat(tm.hostA.Files(tm.hostA.Heartbeat()))
		_, errB := os.Stat(tm.hostB.Files(tm.hostB.Heartbeat()))
		return errA == nil && errB == nil
	})
	idle := tm.idleCycle(t)
	var worstLatency time.Duration
	for i := n - timed + 1; i <= n; i++ {
		tm.l.GitHub.AddComment(scenario.Ref(i), scenario.Human, "OWNER", execute)
		sent := time.Now()
		tm.deliver(t, tm.httpB.URL, i)
		if err := scenario.WaitFor(ctx, time.Minute, "the delivered reply decided", func() bool { return !tm.decidedAt(t, i).IsZero() }); err != nil {
			t.Fatalf("issue #%d: %v; host a: %s; host b: %s", i, err, heartbeatOf(t, tm.hostA, i), heartbeatOf(t, tm.hostB, i))
		}
		latency := tm.decidedAt(t, i).Sub(sent)
		worstLatency = max(worstLatency, latency)
		t.Logf("issue #%d: delivery → decision %s", i, latency.Round(time.Millisecond))
	}
	t.Logf("webhook delivery → gate decision: worst %s; idle cycle of 200 items %s; ratio %.2f", worstLatency.Round(time.Millisecond), idle.Round(time.Millisecond), float64(worstLatency)/float64(idle))
	assert.Less(t, worstLatency, time.Hour/2, "the delivery, not the sweep, decided")

	tm.assertPostedOnce(t, n)
	tm.assertDecidedOnce(t, n)

	code, _, body = mcp(t, http.MethodDelete, tm.httpB.URL, sid, "")
	require.Equal(t, http.StatusOK, code, body)
	code, _, _ = mcp(t, http.MethodPost, tm.httpA.URL, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	assert.Equal(t, http.StatusNotFound, code, "a session ended on replica B is gone on replica A")
}

// idleCycle is the duration of the pollers' idle cycle: the shortest
// "poll cycle" either logged so far after its first.
func (tm *team) idleCycle(t *testing.T) time.Duration {
	t.Helper()
	re := cycleLine
	var best time.Duration
	for _, p := range []*scenario.Process{tm.pollA, tm.pollB} {
		require.NoError(t, p.Signal(syscall.SIGUSR1))
	}
	wait(t, "an idle cycle of each poller", func() bool {
		return len(re.FindAllString(tm.pollA.Log(), -1)) >= 2 && len(re.FindAllString(tm.pollB.Log(), -1)) >= 2
	})
	for _, p := range []*scenario.Process{tm.pollA, tm.pollB} {
		ms := re.FindAllStringSubmatch(p.Log(), -1)
		for _, m := range ms[1:] {
			d, err := time.ParseDuration(m[1])
			require.NoError(t, err)
			if best == 0 || d < best {
				best = d
			}
		}
	}
	return best
}

var cycleLine = regexp.MustCompile(`msg="poll cycle" sources=\d+ duration=(\S+)`)

// longestCycle is the longest cycle p logged so far.
func longestCycle(t *testing.T, p *scenario.Process) time.Duration {
	t.Helper()
	var longest time.Duration
	for _, m := range cycleLine.FindAllStringSubmatch(p.Log(), -1) {
		d, err := time.ParseDuration(m[1])
		require.NoError(t, err)
		longest = max(longest, d)
	}
	return longest
}

// heartbeatOf is issue n's entry in the last cycle report of h's poller.
func heartbeatOf(t *testing.T, h *scenario.Replica, n int) string {
	t.Helper()
	b, err := os.ReadFile(h.Files(h.Heartbeat()))
	if err != nil {
		return err.Error()
	}
	re := regexp.MustCompile(fmt.Sprintf(`\{[^{}]*"workItem": ?"issue-%d"[^{}]*\}`, n))
	return re.FindString(string(b))
}

// actions sums up the last cycle report of h's poller: how many items got
// each action, with one detail of each.
func actions(t *testing.T, h *scenario.Replica) string {
	t.Helper()
	b, err := os.ReadFile(h.Files(h.Heartbeat()))
	if err != nil {
		return err.Error()
	}
	var rep struct {
		Sources []struct {
			Error string
			Items []struct{ WorkItem, Action, Detail string }
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return err.Error()
	}
	count, detail := map[string]int{}, map[string]string{}
	for _, src := range rep.Sources {
		if src.Error != "" {
			count["source error: "+src.Error]++
		}
		for _, it := range src.Items {
			count[it.Action]++
			detail[it.Action] = it.WorkItem + ": " + it.Detail
		}
	}
	out, _ := json.Marshal(map[string]any{"count": count, "detail": detail})
	return string(out)
}

// TestATeamLaunchesEachSessionOnce: with the scripted agent configured, two
// hosts' pollers on one PostgreSQL store arm items in working trees of
// their own; each reply, delivered by webhook to replica B, is decided by
// whichever poller holds the item, which launches the node's session: one
// session per item, run once by the agent, its claim acted on once.
func TestATeamLaunchesEachSessionOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two pollers launching sessions on PostgreSQL: not in -short")
	}
	const n = 6
	tm := newTeam(t, 5*time.Second, false)
	tm.launchSessions(t, n)
	for i := 1; i <= n; i++ {
		wait(t, "each item's claim", reviewRequested(tm.l, i, "requirements-approval"))
	}

	tm.assertPostedOnce(t, n)
	tm.assertDecidedOnce(t, n)
	sessions, err := tm.st.ListSessions(ctx, store.SessionFilter{})
	require.NoError(t, err)
	launched, owners := map[string]int{}, map[string]bool{}
	for _, s := range sessions {
		launched[s.WorkItem+" "+s.Node]++
		owners[s.Owner] = true
	}
	for i := 1; i <= n; i++ {
		assert.Equal(t, 1, launched[fmt.Sprintf("issue-%d requirements-definition", i)], "issue-%d: one session", i)
		runs, _ := filepath.Glob(filepath.Join(tm.l.FakeState, fmt.Sprintf("issue-%d.run-*.pid", i)))
		assert.Len(t, runs, 1, "issue-%d: the agent ran once", i)
	}
	assert.Len(t, launched, n, "no other session: %v", launched)
	t.Logf("sessions launched by %d pollers: %v", len(owners), launched)
}

// TestADeadPollersSessionsAreLaunchedAgainOnce: host A's poller is
// SIGKILLed while the sessions it launched run (they die with it). Host B
// takes A's items over once their leases ran out, settles A's sessions and
// launches each of those nodes again once; no two sessions of an item ever
// run at once, and the other items' sessions are launched once.
func TestADeadPollersSessionsAreLaunchedAgainOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two pollers launching sessions on PostgreSQL: not in -short")
	}
	const n = 6
	tm := newTeam(t, 5*time.Second, false)
	// Every session waits for a file before it works: A dies while they run.
	require.NoError(t, tm.l.ScriptNode("requirements-definition", "wait-for=go"))
	tm.launchSessions(t, n)
	ofA := fmt.Sprintf("/%d/", tm.pollA.PID())
	running := func() map[string]string {
		ss, err := tm.st.ListSessions(ctx, store.SessionFilter{State: store.SessionRunning})
		require.NoError(t, err)
		out := map[string]string{}
		for _, s := range ss {
			out[s.WorkItem] = s.Owner
		}
		return out
	}
	wait(t, "every item's session running", func() bool { return len(running()) == n })
	killedItems := map[string]bool{}
	for item, owner := range running() {
		if strings.Contains(owner, ofA) {
			killedItems[item] = true
		}
	}
	require.NotEmpty(t, killedItems, "poller A runs sessions")
	tm.pollA.Kill()
	require.NoError(t, os.WriteFile(filepath.Join(tm.l.FakeState, "go"), nil, 0o644))
	for i := 1; i <= n; i++ {
		wait(t, "each item's claim", reviewRequested(tm.l, i, "requirements-approval"))
	}

	tm.assertPostedOnce(t, n)
	tm.assertDecidedOnce(t, n)
	sessions, err := tm.st.ListSessions(ctx, store.SessionFilter{})
	require.NoError(t, err)
	byItem := map[string][]store.Session{}
	for _, s := range sessions {
		require.Equal(t, "requirements-definition", s.Node)
		byItem[s.WorkItem] = append(byItem[s.WorkItem], s)
	}
	for i := 1; i <= n; i++ {
		item := fmt.Sprintf("issue-%d", i)
		ss := byItem[item]
		if !killedItems[item] {
			assert.Len(t, ss, 1, "%s: its poller lived; one session", item)
			continue
		}
		require.Len(t, ss, 2, "%s: the session that died with A, and one more by B", item)
		first, second := ss[0], ss[1]
		if second.StartedAt.Before(first.StartedAt) {
			first, second = second, first
		}
		assert.Contains(t, first.Owner, ofA)
		assert.NotContains(t, second.Owner, ofA)
		assert.False(t, first.EndedAt.IsZero(), "%s: A's session is settled", item)
		assert.False(t, second.StartedAt.Before(first.EndedAt), "%s: B launched only once A's session was settled", item)
	}
	t.Logf("A died running %d sessions; each was launched again once", len(killedItems))
}
