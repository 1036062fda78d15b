package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// Replica is one more host of a team deployment of the loop: its own clone
// of the remote, its own state folder (sessions, trees, heartbeat) and its
// own config, sharing with the loop the store (Options.StoreURL), the
// signing key, the fake GitHub and the scripted agent.
//
// Every host of a deployment names the same paths (the store keys an item
// by the path of the repository it is worked in): each replica's processes
// run in a mount namespace of their own where the replica's folder is
// mounted on the one path every replica's config names (Mount), as a
// second machine would have it. That takes root and unshare(1).
type Replica struct {
	// Name names the host; Dir holds its files (checkout, state,
	// config.yaml); Mount is the path its processes see Dir at.
	Name, Dir, Mount string
	// Checkout, State and Config are the paths its processes use (under
	// Mount); Files is Dir, where a test reads them from outside.
	Checkout, State, Config string
	l                       *Loop
}

// CanRunReplicas reports why this machine cannot run replicas ("" when it
// can): each needs a mount namespace of its own.
func CanRunReplicas() string {
	if os.Geteuid() != 0 {
		return "replicas run in mount namespaces of their own, which takes root"
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		return "replicas run in mount namespaces of their own, and unshare(1) is not installed"
	}
	return ""
}

// NewReplica prepares the host name beside the loop (Dir/hosts/name, seen
// by its processes at Dir/host).
func (l *Loop) NewReplica(ctx context.Context, name string) (*Replica, error) {
	if why := CanRunReplicas(); why != "" {
		return nil, errors.New(why)
	}
	r := &Replica{Name: name, Dir: filepath.Join(l.Dir, "hosts", name), Mount: filepath.Join(l.Dir, "host"), l: l}
	r.Checkout, r.State, r.Config = filepath.Join(r.Mount, "checkout"), filepath.Join(r.Mount, "state"), filepath.Join(r.Mount, "config.yaml")
	for _, d := range []string{filepath.Join(r.Dir, "state"), r.Mount} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if !l.opts.Unconfined {
		// The sessions' account walks to the trees under state.
		if err := letThrough(filepath.Join(r.Dir, "state")); err != nil {
			return nil, err
		}
	}
	if _, err := l.git(ctx, r.Dir, "clone", "--quiet", l.Remote, filepath.Join(r.Dir, "checkout")); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "config.yaml"), []byte(l.config(l.opts, r.Checkout, r.State)), 0o600); err != nil {
		return nil, err
	}
	return r, nil
}

// Files is where path, one of the replica's own (under Mount), lives for a
// process outside its namespace.
func (r *Replica) Files(path string) string {
	rel, err := filepath.Rel(r.Mount, path)
	if err != nil {
		return path
	}
	return filepath.Join(r.Dir, rel)
}

// Heartbeat is the replica's poller status file, written after every
// cycle, as its processes see it (Files gives the test's view).
func (r *Replica) Heartbeat() string { return filepath.Join(r.State, "poll-status.json") }

// Poll starts `the-loop poll` on this host (interval 1 s unless args say
// otherwise).
func (r *Replica) Poll(args ...string) (*Process, error) {
	return r.start(append([]string{"poll", "--config", r.Config, "--interval", "1s", "--status-file", r.Heartbeat()}, args...))
}

// Serve starts `the-loop serve --http` on a free loopback port of this
// host and waits until it listens; Process.URL is its base URL.
func (r *Replica) Serve(args ...string) (*Process, error) {
	p, err := r.start(append([]string{"serve", "--config", r.Config, "--http", "127.0.0.1:0"}, args...))
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile(`listening on (http://\S+)/mcp`)
	err = WaitFor(context.Background(), time.Minute, r.Name+"'s serve --http to listen", func() bool {
		if m := re.FindStringSubmatch(p.Log()); m != nil {
			p.URL = m[1]
		}
		return p.URL != "" || p.Exited()
	})
	if err == nil && p.URL == "" {
		err = fmt.Errorf("serve --http on %s exited: %s", r.Name, p.Log())
	}
	if err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

func (r *Replica) start(args []string) (*Process, error) {
	p := &Process{done: make(chan struct{})}
	// unshare execs in place (no fork), and so does the shell: the
	// process's id is the-loop's.
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "--",
		"sh", "-c", `mount --bind "$0" "$1" && shift && exec "$@"`, r.Dir, r.Mount, r.l.TheLoop}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = r.l.env, r.Dir, &p.log, &p.log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.cmd = cmd
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// Process is a the-loop process a replica runs.
type Process struct {
	// URL is serve --http's base URL ("" for a poller).
	URL  string
	cmd  *exec.Cmd
	log  lockedLog
	done chan struct{}
	err  error
}

// PID is the process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Log is what the process printed so far.
func (p *Process) Log() string { return p.log.String() }

// Exited reports whether the process ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill ends the process at once (SIGKILL), as a lost host does: it
// releases nothing and stops nothing it started.
func (p *Process) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop ends the process as systemd does (SIGTERM, then SIGKILL after 30 s).
func (p *Process) Stop() {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.Kill()
	}
}

// Err is how the process ended (nil while it runs or when it exited 0).
func (p *Process) Err() error {
	if !p.Exited() {
		return nil
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return fmt.Errorf("%s: %s", exit, p.Log())
	}
	return p.err
}

// lockedLog collects a process's output.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(b)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Signal sends sig to the process (SIGUSR1 wakes a poller for a cycle).
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }
