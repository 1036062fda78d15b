package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

const webTestToken = "web-view-test-token-0123456789"

// seedWebStore writes a state store holding one item, issue-7, at node
// implementation of the standard loop (phase selection decided, the
// brainstorm skipped), two finished sessions with known tokens and cost,
// and three events; and a second item waiting at a human gate.
func seedWebStore(t *testing.T) (db, repo string) {
	t.Helper()
	ctx := context.Background()
	db = filepath.Join(t.TempDir(), "state.db")
	repo = "/srv/trees/octo-widgets"
	st, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer st.Close()
	entered := time.Now().UTC().Add(-95 * time.Minute).Format(time.RFC3339)
	seed := func(id, node string, edit func(*runtime.State)) {
		s := &runtime.State{Version: 1, WorkItem: id, Ref: "github:octo/widgets#" + strings.TrimPrefix(id, "issue-"), Loop: "pdlc-work-item-loop", CurrentNode: node,
			Nodes: map[string]*runtime.NodeRecord{node: {EnteredAt: entered, LastEnteredAt: entered}}}
		edit(s)
		blob, err := json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, st.Update(ctx, repo, id, func(*store.WorkItem) (*store.WorkItem, []store.Event, error) {
			return &store.WorkItem{Loop: s.Loop, CurrentNode: node, State: blob}, nil, nil
		}))
	}
	seed("issue-7", "implementation", func(s *runtime.State) {
		s.Nodes["phase-selection"] = &runtime.NodeRecord{Outcome: "selected", EnteredAt: "2026-12-06T08:00:00Z", ExitedAt: "2026-12-06T08:05:00Z"}
		s.Nodes["brainstorming"] = &runtime.NodeRecord{Outcome: "skipped"}
		s.Decisions = map[string]*runtime.Decision{"phase-selection": {Node: "phase-selection", Kind: "phase-selection", Outcome: "selected", By: "alice",
			At: "2026-12-06T08:05:00Z", CommentURL: "https://github.com/octo/widgets/issues/7#issuecomment-11"}}
	})
	seed("issue-8", "design-approval", func(*runtime.State) {})
	for _, e := range []string{"item.armed", "node.entered", "session.started"} {
		require.NoError(t, st.AppendEvents(ctx, repo, "issue-7", []store.Event{{Name: e, Node: "implementation"}}))
	}
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte("{\"type\":\"result\",\"result\":\"done — tests pass\"}\n"), 0o600))
	for i, u := range []store.SessionUsage{{Tokens: 120000, CostUSD: 1.25, CostSource: "reported"}, {Tokens: 30000, CostUSD: 0.5, CostSource: "reported"}} {
		start := time.Now().UTC().Add(time.Duration(10*i-90) * time.Minute).Truncate(time.Second)
		rec := store.Session{ID: "s-" + string(rune('a'+i)), Repo: repo, WorkItem: "issue-7", Node: "implementation", Harness: "claude", Argv: []string{"claude", "-p"},
			Attempt: i + 1, StartedAt: start, Transcript: transcript}
		require.NoError(t, st.StartSession(ctx, rec))
		rec.EndedAt, rec.State, rec.ExitStatus, rec.SessionUsage = start.Add(5*time.Minute), store.SessionExited, "exit 0", u
		require.NoError(t, st.FinishSession(ctx, rec))
	}
	return db, repo
}

// addWebItem stores one more item, as the poller would while a page is
// open.
func addWebItem(t *testing.T, db, repo, id, node string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer st.Close()
	blob, err := json.Marshal(&runtime.State{Version: 1, WorkItem: id, Loop: "pdlc-work-item-loop", CurrentNode: node, Nodes: map[string]*runtime.NodeRecord{node: {}}})
	require.NoError(t, err)
	require.NoError(t, st.Update(ctx, repo, id, func(*store.WorkItem) (*store.WorkItem, []store.Event, error) {
		return &store.WorkItem{Loop: "pdlc-work-item-loop", CurrentNode: node, State: blob}, nil, nil
	}))
}

// startServeWeb runs the real `the-loop serve --http` on a free loopback
// port over db and returns the web view's base URL (…/ui/).
func startServeWeb(t *testing.T, db string) string {
	t.Helper()
	env, _, _, cfg := serveEnv(t, "", nil)
	return startServeWebWith(t, env, map[string]string{}, "--config", cfg, "--db", db)
}

// startServeWebWith runs `serve --http 127.0.0.1:0` in env with the
// variables vars (plus the test's token) and args, until the test ends.
func startServeWebWith(t *testing.T, env *Env, vars map[string]string, args ...string) string {
	t.Helper()
	errb := &lockedBuffer{}
	env.Stderr = errb
	all := map[string]string{"THE_LOOP_MCP_TOKEN": webTestToken}
	for k, v := range vars {
		all[k] = v
	}
	env.Getenv = func(k string) string { return all[k] }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, env, append([]string{"serve", "--http", "127.0.0.1:0"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	})
	re := regexp.MustCompile(`web view on (http://\S+)`)
	var base string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(errb.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}, 15*time.Second, 20*time.Millisecond, errb.String())
	return base
}

// TestServeHTTPMountsTheWebView: `serve --http` serves the view under
// /ui/ on the MCP listener, behind the same token: a browser without a
// session is sent to sign in, a token in the URL is refused, and the
// bearer token reads the items the store holds.
func TestServeHTTPMountsTheWebView(t *testing.T) {
	db, _ := seedWebStore(t)
	base := startServeWeb(t, db)
	assert.True(t, strings.HasSuffix(base, "/ui/"), base)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := client.Get(base + "items")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/ui/signin?next=%2Fui%2Fitems", resp.Header.Get("Location"))

	resp, err = client.Get(base + "items?token=" + webTestToken)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(body), "a token in a URL is refused")

	req, _ := http.NewRequest(http.MethodGet, base+"items", nil)
	req.Header.Set("Authorization", "Bearer "+webTestToken)
	resp, err = client.Do(req)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	page := string(body)
	assert.Less(t, strings.Index(page, `data-item="issue-8"`), strings.Index(page, `data-item="issue-7"`), "the item waiting for a human comes first")
	assert.Contains(t, page, "$1.75")
}
