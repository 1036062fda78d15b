// Package scenario runs the whole loop on one machine: a fake GitHub on a
// loopback port, a bare git remote and the poller's checkout of it, the
// real `the-loop poll` with a harness (the scripted fake harness, or Claude
// Code), and helpers to act as the human on the ticket. The example under
// examples/demo and the end-to-end tests drive it.
package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
)

// Human is the authorized login the demo acts as.
const Human = "alice"

// Options configure a demo loop.
type Options struct {
	// Dir is where everything lives (created; keep it short).
	Dir string
	// TheLoop is the the-loop program; FakeHarness the scripted harness
	// ("" when Harness is given); FakeCritic the critic the pull request's
	// critic-review runs (configured as codex).
	TheLoop, FakeHarness, FakeCritic string
	// Harness, when set, replaces the fake harness's `harnesses:` entry
	// (YAML, indented under the harness name), e.g. the claude adapter.
	Harness string
	// Personas adds a harness of every CLI adapter (claude, codex, gemini,
	// opencode) beside the fake's, each the fake harness run under that
	// CLI's name (Personas lists them), for sessions.nodes to pin nodes to.
	Personas bool
	// Sessions is YAML added under `sessions:` (limits for a test).
	Sessions string
	// ReadOnly are further paths its confined sessions read (a program the
	// harness runs besides its own).
	ReadOnly []string
	// Unconfined opts the demo out of confining its sessions
	// (sessions.confinement: none). By default they are confined: as root,
	// under the nobody account.
	Unconfined bool
	// RelaunchMax is sessions.relaunch.max (0: the default, 3).
	RelaunchMax int
	// Models are the checklist's model-* rows (nil: opus-5 and haiku-4).
	Models []string
	// Env is the poller's environment beside PATH, HOME and the tracker
	// token (a test puts secrets there to prove none reaches a session).
	Env map[string]string
	// Log receives the poller's log (nil: discarded).
	Log io.Writer
	// PollArgs are added to the poller's command line, e.g. --log-format json.
	PollArgs []string
	// StoreURL, when set, is the PostgreSQL store (store.url) every process
	// of the loop and of its replicas shares instead of the SQLite file.
	StoreURL string
	// LeaseSeconds is polling.leaseSeconds (0: the default).
	LeaseSeconds int
	// Config is YAML added at the config's top level (mcp:, webhooks:, …).
	Config string
	// GatesOnly configures no harness: items are armed in the poller's
	// checkout, no working tree is made and no session launched; the
	// poller runs the gates.
	GatesOnly bool
}

// Loop is one running demo.
type Loop struct {
	GitHub *providertest.Server
	// Dir holds: remote.git, checkout, state (the database, sessions,
	// trees), script, fake (the fake harness's counters and dumps).
	Dir, Remote, Checkout, Config, DB, State, Script, FakeState, Home string
	TheLoop                                                           string

	env      []string
	opts     Options
	log      io.Writer
	pollArgs []string
	mu       sync.Mutex
	cmd      *exec.Cmd
	// mirrored stops the mirror of the remote's branches into the fake
	// GitHub; mirrorDone is closed when it stopped.
	mirrored   chan struct{}
	mirrorDone chan struct{}
	// built holds the CI job of each commit asked about (ciOnce).
	built sync.Map // sha → *sync.Once
}

// New prepares a loop: the fake GitHub, the repositories, the signing key,
// the scripted agent and the config. Close releases it.
func New(ctx context.Context, o Options) (*Loop, error) {
	l := &Loop{Dir: o.Dir, TheLoop: o.TheLoop, log: o.Log, pollArgs: o.PollArgs, opts: o}
	if l.log == nil {
		l.log = io.Discard
	}
	for name, p := range map[string]*string{"remote.git": &l.Remote, "checkout": &l.Checkout, "state": &l.State,
		"script": &l.Script, "fake": &l.FakeState, "home": &l.Home} {
		*p = filepath.Join(o.Dir, name)
	}
	l.DB, l.Config = filepath.Join(l.State, "the-loop.db"), filepath.Join(o.Dir, "config.yaml")
	for _, d := range []string{l.State, l.Script, l.FakeState, l.Home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if !o.Unconfined && os.Geteuid() == 0 {
		// The sessions' account walks to their trees and programs.
		for _, p := range []string{l.Script, o.TheLoop, o.FakeHarness} {
			if err := letThrough(p); err != nil {
				return nil, err
			}
		}
		if err := os.Chmod(l.Script, 0o755); err != nil {
			return nil, err
		}
	}
	l.GitHub = providertest.StartGitHub()
	l.GitHub.OnChecksRead(func(repo, sha string) {
		if repo == Repo {
			l.ciOnce(sha)
		}
	})
	l.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + l.Home, "GIT_CONFIG_NOSYSTEM=1", "GITHUB_TOKEN=" + l.GitHub.Token()}
	for k, v := range o.Env {
		l.env = append(l.env, k+"="+v)
	}
	steps := []func(context.Context, Options) error{l.writeScript, l.personas, l.writeConfig, l.repositories}
	for _, step := range steps {
		if err := step(ctx, o); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Close stops the poller and the fake GitHub.
func (l *Loop) Close() {
	l.Stop()
	l.GitHub.Close()
}

func (l *Loop) git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "user.name=Demo", "-c", "user.email=demo@example.invalid"}, args...)...)
	cmd.Env = l.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// repositories makes the bare remote — main holds a README, the
// repository config declaring its lint and test commands, the test script,
// the CI job, and the public half of the poller's signing key (`the-loop
// keys init` makes the pair), so a fresh clone verifies the record — and
// the poller's checkout of it.
func (l *Loop) repositories(ctx context.Context, _ Options) error {
	seed := filepath.Join(l.Dir, "seed")
	if _, err := l.git(ctx, l.Dir, "init", "--quiet", "--bare", "--initial-branch=main", l.Remote); err != nil {
		return err
	}
	// The remote takes a push on every step of the loop; like GitHub's, it
	// does not run git gc after each one.
	if _, err := l.git(ctx, l.Remote, "config", "receive.autoGC", "false"); err != nil {
		return err
	}
	if _, err := l.git(ctx, l.Dir, "clone", "--quiet", l.Remote, seed); err != nil {
		return err
	}
	files := map[string]string{
		"README.md": "# widgets\n",
		".the-loop/harness-config.yaml": "ticketing:\n  system: github\n  github:\n    owner: octo\n    repo: widgets\nsessions:\n  harness: agent\n" +
			"commands:\n  lint: [git, diff, --check]\n  test: [sh, scripts/test.sh]\n",
		"scripts/test.sh": testScript,
		CIScript:          ciScript,
	}
	for name, body := range files {
		p := filepath.Join(seed, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	if _, err := l.Run(ctx, "keys", "init", "--config", l.Config, "--key-file", filepath.Join(l.Home, "signing.key"), "--repo", seed); err != nil {
		return err
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "--quiet", "-m", "seed"}, {"push", "--quiet", "origin", "HEAD:refs/heads/main"}} {
		if _, err := l.git(ctx, seed, args...); err != nil {
			return err
		}
	}
	if _, err := l.git(ctx, l.Dir, "clone", "--quiet", l.Remote, l.Checkout); err != nil {
		return err
	}
	return os.RemoveAll(seed)
}

// testScript is the demo repository's test command (commands.test): the
// loop runs it at implementation and verification and commits its output
// as evidence. It says where it ran and passes once every task is ticked.
const testScript = `#!/bin/sh
echo "working directory: $(pwd)"
if grep -n '^- \[ \]' docs/specs/*/tasks.md; then
  echo "FAIL: the tasks above are not done"
  exit 1
fi
echo "ok  every task is done"
`

func (l *Loop) writeScript(context.Context, Options) error {
	nodes := map[string]bool{}
	for _, node := range AgentNodes {
		nodes[node] = true
	}
	for node := range script {
		nodes[node] = true // and the variants played when a node runs again
	}
	for node := range nodes {
		var directives []string
		switch node {
		case "implementation":
			directives = append(directives, "pr-create") // the implementation opens the item's pull request
		case "pr/critic-review":
			directives = append(directives, "critic=codex") // a round of the configured critic, recorded on the pull request's loop
		}
		if err := l.ScriptNode(node, directives...); err != nil {
			return err
		}
	}
	for node, files := range script {
		for name, body := range files {
			p := filepath.Join(l.Script, node, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// letThrough lets every account search the directories above path that
// the demo's process made under the temporary directory (t.TempDir and
// MkdirTemp make them 0700), so the sessions' account reaches what it runs.
func letThrough(path string) error {
	if path == "" {
		return nil
	}
	tmp := filepath.Clean(os.TempDir())
	for dir := filepath.Dir(path); strings.HasPrefix(dir, tmp+string(filepath.Separator)); dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(dir, fi.Mode().Perm()|0o011); err != nil {
				return err
			}
		}
	}
	return nil
}

// usage is what every scripted session reports spending.
const usage = "turns=3 tokens=1500 cost=0.04"

// ScriptNode sets the directives of the fake harness at node (e.g.
// "hang-runs=1", "fail-runs=9", "probe", "env-dump"), beside the usage it
// reports.
func (l *Loop) ScriptNode(node string, directives ...string) error {
	p := filepath.Join(l.Script, node, "fake")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(strings.Join(append([]string{usage}, directives...), "\n")+"\n"), 0o644)
}

// Personas are the agent CLIs Options.Personas stands the fake harness in
// for.
var Personas = []string{"claude", "codex", "gemini", "opencode"}

// personas puts the fake harness under each CLI's name in Dir/bin, with
// the sidecar that gives it the loop's script and state.
func (l *Loop) personas(_ context.Context, o Options) error {
	if !o.Personas {
		return nil
	}
	bin := filepath.Join(l.Dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	sidecar, _ := json.Marshal(map[string]any{"state": l.FakeState, "script": l.Script, "claim": true, "dump": true})
	for _, cli := range Personas {
		link := filepath.Join(bin, cli)
		if err := os.Symlink(o.FakeHarness, link); err != nil {
			return err
		}
		if err := os.WriteFile(link+".fake.json", sidecar, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// personaHarnesses are the personas' harnesses: the CLIs that report no
// cost get a price for every model the checklist offers.
func (l *Loop) personaHarnesses(o Options) string {
	if !o.Personas {
		return ""
	}
	var b strings.Builder
	for _, cli := range Personas {
		fmt.Fprintf(&b, "  %s:\n    adapter: %s\n    binary: %q\n", cli, cli, filepath.Join(l.Dir, "bin", cli))
		if cli == "codex" || cli == "gemini" {
			b.WriteString("    prices:\n")
			priced := map[string]bool{}
			for _, m := range append(append([]string(nil), o.Models...), "opus-5", "haiku-4") {
				if !priced[m] {
					priced[m] = true
					fmt.Fprintf(&b, "      %s: {input: 2, output: 8}\n", m)
				}
			}
		}
	}
	return b.String()
}

func (l *Loop) writeConfig(_ context.Context, o Options) error {
	return os.WriteFile(l.Config, []byte(l.config(o, l.Checkout, l.State)), 0o600)
}

// config is the loop's config for a poller working in checkout and keeping
// its sessions, trees and (SQLite) database in state.
func (l *Loop) config(o Options, checkout, state string) string {
	harness := o.Harness
	if harness == "" {
		harness = fmt.Sprintf(`    adapter: command
    output: stream-json
    argv: [%q, --prompt-file, "{prompt_file}", --mcp-config, "{mcp_config}", --workdir, "{workdir}", --work-item, "{work_item}",
      --model, "{model}", --effort, "{effort}", --state, %q, --script, %q, --claim, --dump]
`, o.FakeHarness, l.FakeState, l.Script)
	}
	harness += l.personaHarnesses(o)
	sessions := o.Sessions
	switch {
	case o.Unconfined:
		sessions = "confinement: none\n" + sessions
	default:
		// What the scripted agent reaches besides its tree: its run
		// counters, its script and the personas' sidecars. Never the bare
		// remote: a session commits, and the loop pushes.
		ro := fmt.Sprintf("%q", l.Script)
		if o.Personas { // each persona's sidecar beside its link
			ro += fmt.Sprintf(", %q", filepath.Join(l.Dir, "bin"))
		}
		for _, p := range o.ReadOnly {
			ro += fmt.Sprintf(", %q", p)
		}
		sessions = fmt.Sprintf("sandbox:\n  writable: [%q]\n  readOnly: [%s]\n", l.FakeState, ro) + sessions
		if os.Geteuid() == 0 {
			sessions = "user: \"65534\"\n" + sessions
		}
	}
	models := o.Models
	if len(models) == 0 {
		models = []string{"opus-5", "haiku-4"}
	}
	db := fmt.Sprintf("path: %q", filepath.Join(state, "the-loop.db"))
	if o.StoreURL != "" {
		db = fmt.Sprintf("url: %q", o.StoreURL)
	}
	lease := o.LeaseSeconds
	if lease == 0 {
		lease = 30
	}
	cfg := fmt.Sprintf(`integrations:
  github:
    baseUrl: %q
routing:
  authorizedUsers: [%s]
  selfLogins: [%s]
  models: [%s]
  efforts: [high]
signing:
  privateKeyFile: %q
store:
  %s
polling:
  intervalSeconds: 1
  leaseSeconds: %d
  sources:
    - system: github
      repos: [octo/widgets]
      checkout: %q
`, l.GitHub.URL(), Human, l.GitHub.BotLogin(), strings.Join(models, ", "), filepath.Join(l.Home, "signing.key"), db, lease, checkout)
	if !o.GatesOnly {
		cfg += fmt.Sprintf(`harnesses:
  agent:
%scritics:
  - name: codex
    command: [%q, --prompt-file, "{prompt_file}"]
sessions:
  stateDir: %q
  drainSeconds: 5
  stopGraceSeconds: 2
  commitName: the-loop
  commitEmail: loop@example.invalid
  relaunch:
    max: %d
    backoffSeconds: 1
    maxBackoffSeconds: 2
%s`, harness, o.FakeCritic, state, o.RelaunchMax, indent(sessions))
	}
	cfg += o.Config
	return cfg
}

func indent(yaml string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(yaml, "\n"), "\n") {
		if line != "" {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

// Run runs one the-loop command with the poller's environment and returns
// its standard output.
func (l *Loop) Run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, l.TheLoop, args...)
	cmd.Env, cmd.Dir = l.env, l.Checkout
	if _, err := os.Stat(l.Checkout); err != nil {
		cmd.Dir = l.Dir // before the checkout is cloned
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("the-loop %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// Start runs `the-loop poll` in the background.
func (l *Loop) Start() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd != nil {
		return errors.New("the poller is already running")
	}
	// The heartbeat appears after the first cycle, once the poller takes
	// wake-ups (Kick); a stale one from an earlier poller must not count.
	if err := os.Remove(l.heartbeat()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	cmd := exec.Command(l.TheLoop, append([]string{"poll", "--config", l.Config, "--interval", "1s", "--status-file", l.heartbeat()}, l.pollArgs...)...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = l.env, l.Dir, l.log, l.log
	if err := cmd.Start(); err != nil {
		return err
	}
	l.cmd = cmd
	l.mirrored, l.mirrorDone = make(chan struct{}), make(chan struct{})
	go l.mirror(l.mirrored, l.mirrorDone)
	return nil
}

// PollerPID is the running poller's process id (0 when it is not running).
func (l *Loop) PollerPID() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd == nil || l.cmd.Process == nil {
		return 0
	}
	return l.cmd.Process.Pid
}

// heartbeat is the poller's status file, written after every cycle.
func (l *Loop) heartbeat() string { return filepath.Join(l.State, "poll-status.json") }

// Kick wakes the running poller for a cycle now (SIGUSR1) instead of at its
// next interval: what a person or CI just did on the fake GitHub is acted on
// at once. Before the poller's first cycle it does nothing: that cycle reads
// everything anyway.
func (l *Loop) Kick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cmd == nil {
		return
	}
	if _, err := os.Stat(l.heartbeat()); err != nil {
		return
	}
	_ = l.cmd.Process.Signal(syscall.SIGUSR1)
}

// Stop stops the poller (SIGTERM: it stops its sessions first).
func (l *Loop) Stop() {
	l.mu.Lock()
	cmd, stop, mirrored := l.cmd, l.mirrored, l.mirrorDone
	l.cmd, l.mirrored = nil, nil
	l.mu.Unlock()
	if cmd == nil {
		return
	}
	close(stop)
	<-mirrored
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Ref is issue n of the demo repository.
func Ref(n int) integrations.Ref {
	return integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: n}
}

// Say posts body on issue n as the authorized human.
func (l *Loop) Say(n int, body string) {
	l.GitHub.AddComment(Ref(n), Human, "OWNER", body)
	l.Kick()
}

// Comments are issue n's comments.
func (l *Loop) Comments(n int) []providertest.Comment { return l.GitHub.Comments(Ref(n)) }

// Posted reports whether the loop posted a comment on issue n holding
// marker.
func (l *Loop) Posted(n int, marker string) (providertest.Comment, bool) {
	cs := l.Comments(n)
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Author == l.GitHub.BotLogin() && strings.Contains(cs[i].Body, marker) {
			return cs[i], true
		}
	}
	return providertest.Comment{}, false
}

// Tree is where item id's working tree lives.
func (l *Loop) Tree(id string) string { return filepath.Join(l.State, "trees", "octo-widgets", id) }

// State is item id's portable record as its tree holds it (nil when it has
// none yet).
func (l *Loop) StateOf(id string) map[string]any {
	return readJSON(filepath.Join(l.Tree(id), "docs", "specs", id, "work-item-state.json"))
}

// readJSON is the JSON object in file path (nil when it cannot be read).
func readJSON(path string) map[string]any {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var st map[string]any
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	return st
}

// Node is item id's current node ("" before it is armed).
func (l *Loop) Node(id string) string {
	n, _ := l.StateOf(id)["currentNode"].(string)
	return n
}

// WaitFor polls cond until it holds or timeout passes.
func WaitFor(ctx context.Context, timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after %s waiting for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
