package sessions

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/internal/testrepo"
	"github.com/the-loop/the-loop/store"
)

func TestMain(m *testing.M) {
	// The store logs its migration on the default logger; keep benchmark
	// and test output clean.
	slog.SetDefault(slog.New(slog.NewTextHandler(ioDiscard{}, nil)))
	code := m.Run()
	testrepo.Clean()
	os.Exit(code)
}

const fakePkg = "github.com/the-loop/the-loop/agents/harness/fakeharness"

// clock is a test clock: time moves only when the test says so.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// rig is a repository with a bare remote, its per-item trees, a store,
// the fake harness and a state directory.
type rig struct {
	t      *testing.T
	store  *store.Store
	clock  *clock
	state  string // session state (short: tmux sockets live here)
	fake   string // fake harness state (run counters, dumps)
	remote string
	ws     *workspace.Manager
	env    []string
	trees  map[string]*workspace.Tree
	ids    int
}

func newRig(t *testing.T) *rig {
	t.Helper()
	state, err := os.MkdirTemp("", "tl")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(state) })
	base := t.TempDir()
	r := &rig{t: t, clock: &clock{now: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}, state: state,
		fake: filepath.Join(base, "fake"), remote: filepath.Join(base, "remote.git"), trees: map[string]*workspace.Tree{}}
	require.NoError(t, os.MkdirAll(r.fake, 0o700))
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1"}
	_, source := testrepo.Seed(t, base, map[string]string{"README.md": "hello\n"})
	r.ws, err = workspace.New(context.Background(), workspace.Options{Source: source, Root: filepath.Join(base, "trees"), Env: r.env,
		Identity: workspace.Identity{Name: "the-loop", Email: "loop@example.invalid"}})
	require.NoError(t, err)
	r.store, err = store.Open(context.Background(), filepath.Join(base, "the-loop.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.store.Close() })
	return r
}

func (r *rig) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// harnesses is the fake harness behind the command adapter.
func (r *rig) harnesses() map[string]harness.Config {
	bin := testbin.Build(r.t, fakePkg)
	return map[string]harness.Config{"fake": {Adapter: harness.AdapterCommand, Output: harness.OutputStreamJSON, Argv: []string{
		bin, "--prompt-file", "{prompt_file}", "--mcp-config", "{mcp_config}", "--workdir", "{workdir}",
		"--work-item", "{work_item}", "--model", "{model}", "--effort", "{effort}", "--state", r.fake, "trailing;"}}}
}

func (r *rig) supervisor(cfg Config, runner Runner) *Supervisor {
	return r.supervisorWith(cfg, runner, nil)
}

// supervisorWith is supervisor reading the sessions' trees through progress.
func (r *rig) supervisorWith(cfg Config, runner Runner, progress Progress) *Supervisor {
	r.t.Helper()
	s, err := New(cfg, Deps{Store: r.store, Harnesses: r.harnesses(), Serve: []string{"/usr/local/bin/the-loop", "serve"}, Progress: progress,
		StateDir: r.state, Runner: runner, Now: r.clock.Now, Log: slog.New(slog.NewTextHandler(ioDiscard{}, nil)),
		Sensitive: []string{"MY_TRACKER_CREDENTIALS_VAR", "CUSTOM_SECRET_NAME"},
		NewID:     func() string { r.ids++; return fmt.Sprintf("s-%03d", r.ids) }})
	require.NoError(r.t, err)
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

type ioDiscard struct{}

func (ioDiscard) Write(p []byte) (int, error) { return len(p), nil }

// want returns a want for item on node, creating the item's tree.
func (r *rig) want(item, node, prompt string, order int64) Want {
	r.t.Helper()
	tree, ok := r.trees[item]
	if !ok {
		var err error
		tree, err = r.ws.Add(context.Background(), item, "the-loop/"+item)
		require.NoError(r.t, err)
		r.trees[item] = tree
	}
	return Want{Repo: "octo/widgets", WorkItem: item, Node: node, Prompt: prompt, Harness: "fake", Workdir: tree.Dir, Order: order}
}

// committed reports whether item's branch, in its tree, holds path (a
// session commits; the loop, not the supervisor, pushes).
func (r *rig) committed(item, path string) bool {
	tree, ok := r.trees[item]
	if !ok {
		return false
	}
	cmd := exec.Command("git", "-C", tree.Dir, "cat-file", "-e", "refs/heads/the-loop/"+item+":"+path)
	cmd.Env = r.env
	return cmd.Run() == nil
}

// ready waits until run n of item has printed its usage.
func (r *rig) ready(item string, n int) {
	r.t.Helper()
	var session []byte
	waitFor(r.t, fmt.Sprintf("run %d of %s", n, item), func() bool {
		var err error
		session, err = os.ReadFile(filepath.Join(r.fake, fmt.Sprintf("%s.run-%d.ready", item, n)))
		return err == nil
	})
	// The run printed its usage before it wrote the ready file; the
	// supervisor copies the output into the transcript through a pipe.
	waitFor(r.t, fmt.Sprintf("the usage of run %d of %s in its transcript", n, item), func() bool {
		paths, _ := filepath.Glob(filepath.Join(r.state, "sessions", "*", "transcript.jsonl"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, session) && bytes.Contains(b, []byte(`"type":"assistant"`)) {
				return true
			}
		}
		return false
	})
}

func (r *rig) runs(item string) int {
	b, _ := os.ReadFile(filepath.Join(r.fake, item+".runs"))
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func (r *rig) events(item string) []string {
	r.t.Helper()
	evs, err := r.store.Events(context.Background(), "octo/widgets", item)
	require.NoError(r.t, err)
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// cycleUntil runs cycles (after each session exit, or briefly polling)
// until done holds for one cycle's report, and returns that report.
func cycleUntil(t *testing.T, s *Supervisor, wants func() []Want, done func(Report) bool) Report {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		rep, err := s.Cycle(context.Background(), wants())
		require.NoError(t, err)
		if done(rep) {
			return rep
		}
		select {
		case <-s.Changed():
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("gave up waiting; last report: %+v", rep)
		}
	}
}

func exited(rep Report) bool { return len(rep.Exited) > 0 }

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fixed(ws ...Want) func() []Want { return func() []Want { return ws } }
func harnessGone() harness.Config {
	return harness.Config{Adapter: harness.AdapterCommand, Argv: []string{"/nonexistent/agent", "{prompt_file}"}}
}
