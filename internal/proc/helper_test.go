package proc

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// helperVar selects a helper mode when the test binary runs as a child.
const helperVar = "PROC_HELPER"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(helperVar); ok {
		os.Exit(helper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helper is the child program the tests run: the test binary itself.
func helper(mode string, args []string) int {
	switch mode {
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "args":
		for _, a := range args {
			fmt.Println(a)
		}
	case "exit":
		n, _ := strconv.Atoi(args[0])
		return n
	case "spam":
		n, _ := strconv.Atoi(args[0])
		line := strings.Repeat("x", 99) + "\n"
		for i := 0; i < n/100; i++ {
			fmt.Fprint(os.Stdout, line)
			fmt.Fprint(os.Stderr, line)
		}
		fmt.Print("END\n")
	case "stdin":
		_, _ = io.Copy(os.Stdout, os.Stdin)
	case "sleep":
		writeReady(args)
		hang()
	case "trapterm":
		signal.Ignore(syscall.SIGTERM)
		writeReady(args)
		hang()
	case "grandchild":
		// args: pidfile then "stay" or "leave": start a sleeping grandchild
		// that inherits stdout, record its pid, then stay or exit.
		self, _ := os.Executable()
		p, err := os.StartProcess(self, []string{self}, &os.ProcAttr{
			Env:   []string{helperVar + "=sleep"},
			Files: []*os.File{nil, os.Stdout, os.Stderr},
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		_ = os.WriteFile(args[0]+".tmp", []byte(strconv.Itoa(p.Pid)), 0o600)
		_ = os.Rename(args[0]+".tmp", args[0])
		if args[1] == "stay" {
			hang()
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		return 99
	}
	return 0
}

func writeReady(args []string) {
	if len(args) > 0 {
		_ = os.WriteFile(args[0], []byte("ready"), 0o600)
	}
}

// helperArgv is argv that runs the helper in mode.
func helperArgv(t testing.TB, args ...string) []string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return append([]string{self}, args...)
}

// helperEnv is the helper's environment: the mode and nothing else unless
// extra names more.
func helperEnv(mode string, extra ...string) []string {
	return append([]string{helperVar + "=" + mode}, extra...)
}

// waitFor polls cond until it holds or a generous deadline passes; it
// waits on outside processes, it never measures time.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

func readPid(t testing.TB, path string) int {
	t.Helper()
	waitFor(t, "the grandchild's pid file", func() bool { _, err := os.Stat(path); return err == nil })
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(b))
	require.NoError(t, err)
	return pid
}

// hang blocks until the process is signalled. Not select{}: without cgo
// (CGO_ENABLED=0, the default where no C compiler is installed) the
// runtime reports a lone goroutine blocked forever as a deadlock and exits.
func hang() {
	for {
		time.Sleep(time.Hour)
	}
}
