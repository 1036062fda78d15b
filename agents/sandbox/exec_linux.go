//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ExitSetup is the launcher's exit code when it could not confine the
// session: nothing of the harness ran.
const ExitSetup = 126

// Exec is the launcher (`the-loop sandbox-exec --policy FILE -- ARGV`): it
// applies the policy's layers to itself, starts argv under them with its
// own environment, forwards SIGTERM, SIGINT and SIGHUP, reaps every
// process of the namespace, and returns argv's exit code (128+N for a
// signal). A setup failure is reported on stderr and returns ExitSetup.
func Exec(policyPath string, argv []string, stderr io.Writer) int {
	p, err := ReadPolicy(policyPath)
	if err == nil && len(argv) == 0 {
		err = errors.New("sandbox-exec: no program to run after --")
	}
	if err == nil && p.Has(LayerPID) && os.Getpid() != 1 {
		return enter(p, append([]string{"sandbox-exec", "--policy", policyPath, "--"}, argv...), stderr)
	}
	if err == nil {
		err = apply(p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "the-loop sandbox-exec: the session was not started: %v\n", err)
		return ExitSetup
	}
	code, err := runReaped(p, argv)
	if err != nil {
		fmt.Fprintf(stderr, "the-loop sandbox-exec: %v\n", err)
		return ExitSetup
	}
	return code
}

// Probe is `the-loop sandbox-exec --probe --policy FILE`: it applies the
// policy's layers and reports what it found as one JSON line on out.
func ProbeMain(policyPath string, out, stderr io.Writer) int {
	p, err := ReadPolicy(policyPath)
	if err == nil && p.Has(LayerPID) && os.Getpid() != 1 {
		return enter(p, []string{"sandbox-exec", "--probe", "--policy", policyPath}, stderr)
	}
	if err == nil {
		err = apply(p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return ExitSetup
	}
	res := probeResult{PID1: os.Getpid() == 1, ABI: landlockABI()}
	if p.Has(LayerPID) && !res.PID1 {
		fmt.Fprintln(stderr, "the launcher is not PID 1 of a namespace of its own")
		return ExitSetup
	}
	_ = json.NewEncoder(out).Encode(res)
	return 0
}

// apply puts the calling launcher inside p's layers, in the only order that
// works: mounts need the capabilities Landlock then takes away.
func apply(p Policy) error {
	if p.Has(LayerPID) {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("pid layer: make the mounts private: %w", err)
		}
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("pid layer: mount a fresh /proc: %w", err)
		}
	}
	if p.Has(LayerLandlock) {
		if err := restrict(p); err != nil {
			return fmt.Errorf("landlock layer: %w", err)
		}
	}
	return nil
}

// restrict applies Landlock to every thread of the launcher; the harness
// inherits it. It also sets no_new_privs.
func restrict(p Policy) error {
	abi := landlockABI()
	if abi < 1 {
		return errors.New("the kernel offers no Landlock ABI")
	}
	g, err := p.Grants()
	if err != nil {
		return err
	}
	rw := landlock.RWDirs(g.WriteDirs...)
	if abi >= 2 {
		rw = rw.WithRefer() // moving files inside the tree
	}
	rules := []landlock.Rule{
		rw,
		landlock.RWFiles(g.WriteFiles...).WithIoctlDev(),
		landlock.RODirs(g.ReadDirs...),
		landlock.ROFiles(g.ReadFiles...),
	}
	if abi >= 5 {
		rules[0] = rw.WithIoctlDev() // terminals under /dev/pts
	}
	return landlock.V7.BestEffort().Restrict(rules...)
}

// landlockABI is the kernel's Landlock ABI version (0: none).
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// runReaped starts argv and reaps until it ends. As PID 1 of the session's
// namespace the launcher is every orphan's parent; when it returns, the
// kernel kills the rest of the namespace.
func runReaped(p Policy, argv []string) (int, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: os.Environ(), Dir: p.Workdir,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if p.Has(LayerUser) {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(p.UID), Gid: uint32(p.GID), Groups: []uint32{}}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// The fork happens on this thread: clear the capabilities a user
	// namespace gave the launcher and set no_new_privs there first.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return 0, fmt.Errorf("clear ambient capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	child := cmd.Process.Pid
	go func() {
		for s := range sigs {
			_ = syscall.Kill(child, s.(syscall.Signal))
		}
	}()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("wait for %s: %w", argv[0], err)
		}
		if pid != child {
			continue // an orphan, reaped
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}

// enter re-executes the launcher with args inside new namespaces (Attr) and
// waits for it, forwarding SIGTERM, SIGINT and SIGHUP: the part of the
// launcher that stays outside, so the runner needs nothing but a plain
// child process.
func enter(p Policy, args []string, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "the-loop sandbox-exec: the session was not started: %v\n", err)
		return ExitSetup
	}
	cmd := exec.Command(exe, args...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Environ(), os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = Attr(p)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	runtime.LockOSThread() // Pdeathsig follows the thread that forked
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "the-loop sandbox-exec: the session was not started: a private PID namespace could not be made: %v\n", err)
		return ExitSetup
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "the-loop sandbox-exec: %v\n", err)
	return ExitSetup
}
