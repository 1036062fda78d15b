package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
)

// Driving a started loop: the CLI, the poller process, what the people on
// the fake GitHub say, and what the loop wrote.

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
