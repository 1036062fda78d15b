package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rig is a session's directories under a base others may search.
type rig struct {
	base, work, home, tmp, secretDir, outside, sysDir string
}

func newRig(t *testing.T) rig {
	t.Helper()
	base, err := os.MkdirTemp("", "the-loop-sandbox-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o711))
	r := rig{base: base, work: filepath.Join(base, "work"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"),
		secretDir: filepath.Join(base, "secret"), outside: filepath.Join(base, "outside"), sysDir: filepath.Join(base, "sys")}
	for _, d := range []string{r.work, r.home, r.tmp, r.secretDir, r.outside, r.sysDir} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	require.NoError(t, os.Chmod(r.outside, 0o777))
	for path, body := range map[string]string{
		filepath.Join(r.secretDir, "signing.key"): "KEY-MATERIAL",
		filepath.Join(r.sysDir, "config.yaml"):    "CONFIG-MATERIAL",
		filepath.Join(r.sysDir, "hosts"):          "public",
	} {
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	return r
}

// confiner is the host's confiner for the tests: as root, with the
// nobody account; skipped, with the reason, where the host cannot confine.
func confiner(t *testing.T, r rig) *Confiner {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	c := Config{}
	if os.Geteuid() == 0 {
		c.User = "65534"
	}
	cf := NewConfiner(c, Options{Exe: exe, Protected: []string{filepath.Join(r.sysDir, "config.yaml"), r.secretDir}})
	if err := cf.Refusal(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must confine sessions: %v", err)
		}
		t.Skipf("this host cannot confine a session: %v", err)
	}
	return cf
}

// run runs script under the launcher and returns its output and exit code.
func run(t *testing.T, cf *Confiner, r rig, script string, env ...string) (string, int) {
	t.Helper()
	p := cf.Policy(Session{Workdir: r.work, Home: r.home, Tmp: r.tmp, ReadOnly: []string{r.sysDir}, Programs: []string{"/bin/sh"}})
	if a := cf.Account(); a != nil {
		require.NoError(t, Own(*a, r.home, r.tmp))
		require.NoError(t, Share(a.UID, r.work))
	}
	policy := filepath.Join(r.base, "policy.json")
	require.NoError(t, WritePolicy(policy, p))
	argv := cf.Wrap(policy, []string{"/bin/sh", "-c", script})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + r.home, "TMPDIR=" + r.tmp}, env...)
	cmd.SysProcAttr = Attr(p)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return string(out), code
}

// The attempts a session's shell makes, each printing name=outcome.
const hostileScript = `
say() { echo "$1=$2"; }
id -u | sed 's/^/uid=/'
cat "$KEY" >/dev/null 2>&1 && say key leaked || say key denied
cat "$CONFIG" >/dev/null 2>&1 && say config leaked || say config denied
cat "$HOSTS" >/dev/null 2>&1 && say hosts read || say hosts denied
echo x > "$OUTSIDE/f" 2>/dev/null && say outside written || say outside denied
echo x > /tmp/the-loop-escape-$$ 2>/dev/null && say tmp written || say tmp denied
echo x > "$PWD/inside" && say inside written || say inside denied
echo x > "$HOME/h" && say home written || say home denied
echo x > "$TMPDIR/t" && say tmpdir written || say tmpdir denied
test -e /proc/$POLLER && say poller visible || say poller hidden
kill -0 $POLLER 2>/dev/null && say signal sent || say signal refused
grep -l "$SECRET_A$SECRET_B" /proc/[0-9]*/environ 2>/dev/null | grep -q . && say environ leaked || say environ clean
echo procs=$(ls /proc | grep -c '^[0-9]')
echo x > /dev/null && say devnull ok || say devnull denied
setsid sleep $LINGER >/dev/null 2>&1 &
say linger started
`

func TestLauncherConfinesASession(t *testing.T) {
	r := newRig(t)
	cf := confiner(t, r)
	linger := strconv.Itoa(5000 + os.Getpid()%4000)
	t.Setenv("THE_LOOP_TEST_SECRET", "PollerSecret-"+linger) // the poller's environment holds it; the session's does not
	out, code := run(t, cf, r, hostileScript,
		"KEY="+filepath.Join(r.secretDir, "signing.key"), "CONFIG="+filepath.Join(r.sysDir, "config.yaml"), "HOSTS="+filepath.Join(r.sysDir, "hosts"),
		"OUTSIDE="+r.outside, "POLLER="+strconv.Itoa(os.Getpid()), "SECRET_A=PollerSecret-", "SECRET_B="+linger, "LINGER="+linger)
	require.Equal(t, 0, code, out)
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			got[k] = v
		}
	}
	want := map[string]string{"key": "denied", "config": "denied", "hosts": "read", "outside": "denied", "tmp": "denied",
		"inside": "written", "home": "written", "tmpdir": "written", "poller": "hidden", "signal": "refused", "environ": "clean", "devnull": "ok", "linger": "started"}
	for k, v := range want {
		assert.Equal(t, v, got[k], "%s (output:\n%s)", k, out)
	}
	n, _ := strconv.Atoi(got["procs"])
	assert.Less(t, n, 10, "the session sees its own namespace's processes only")
	if a := cf.Account(); a != nil {
		assert.Equal(t, strconv.Itoa(a.UID), got["uid"], "the harness runs under the sessions' account")
	}
	assert.False(t, lingering("sleep", linger), "a setsid process died with the session")
}

// lingering reports whether a process runs argv0 with arg, host-wide.
func lingering(argv0, arg string) bool {
	time.Sleep(100 * time.Millisecond)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		parts := strings.Split(string(b), "\x00")
		if len(parts) >= 2 && filepath.Base(parts[0]) == argv0 && parts[1] == arg {
			return true
		}
	}
	return false
}

// TestLauncherConfinesAnUnprivilegedPoller runs the confinement test again
// as an unprivileged user (nobody), as a poller that is not root would:
// a user namespace, the PID namespace and Landlock, without an account.
func TestLauncherConfinesAnUnprivilegedPoller(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to start the test again as nobody; as an unprivileged user the main test is this one")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "the-loop-sandbox-bin-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "sandbox.test")
	b, err := os.ReadFile(exe)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, b, 0o755))
	cmd := exec.Command(bin, "-test.run", "^TestLauncherConfinesASession$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestLauncherConfinesASession", "%s", out)
	assert.NotContains(t, string(out), "SKIP", "%s", out)
	fmt.Fprintf(os.Stderr, "%s", out)
}
