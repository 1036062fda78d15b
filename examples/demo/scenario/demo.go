// Package scenario runs the whole loop on one machine: a fake GitHub on a
// loopback port, a bare git remote and the poller's checkout of it, the
// real `the-loop poll` with a harness (the scripted fake harness, or Claude
// Code), and helpers to act as the human on the ticket. The example under
// examples/demo and the end-to-end tests drive it.
package scenario

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

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
