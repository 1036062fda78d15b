package systemd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
)

const testToken = "ghp_credential_token_for_the_unit_test"

// host is a fake filesystem root laid out the way the install steps and
// systemd lay out the real one, and an unused uid standing for the service
// user (systemd's credentials, state directory, environment and umask are
// reproduced from the unit; its namespaces and seccomp filter are not — CI
// checks those with systemd-analyze).
type host struct {
	root string
	uid  int
	bin  string
}

func (h *host) path(abs string) string { return filepath.Join(h.root, abs) }

// newHost skips unless the test can switch to an unprivileged user.
func newHost(t *testing.T) *host {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("systemd units are Linux-only")
	}
	if os.Geteuid() != 0 {
		t.Skip("starting the poller as an unprivileged user needs root")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv (util-linux) is not installed")
	}
	root, err := os.MkdirTemp("", "the-loop-unit-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	require.NoError(t, os.Chmod(root, 0o755))
	h := &host{root: root, uid: freeUID(t)}
	for _, d := range []string{"/etc", "/run", "/run/credentials", "/var", "/var/lib", "/usr/local/bin"} {
		require.NoError(t, os.MkdirAll(h.path(d), 0o755))
	}
	// Install steps 1, 3 and 5 of docs/poller.md.
	h.bin = h.path("/usr/local/bin/the-loop")
	copyFile(t, buildBinary(t), h.bin, 0o755)
	for _, d := range []string{"/etc/the-loop", "/etc/credstore"} {
		require.NoError(t, os.Mkdir(h.path(d), 0o700))
	}
	home := h.path("/var/lib/the-loop")
	for _, d := range []string{home, home + "/checkouts"} {
		require.NoError(t, os.Mkdir(d, 0o700))
		require.NoError(t, os.Chown(d, h.uid, h.uid))
	}
	copyTree(t, filepath.Join("..", "..", "testdata", "repo"), home+"/checkouts/widgets", h.uid)
	return h
}

// freeUID is a uid no account uses.
func freeUID(t *testing.T) int {
	t.Helper()
	for uid := 61000; uid < 62000; uid++ {
		if _, err := user.LookupId(strconv.Itoa(uid)); err != nil {
			return uid
		}
	}
	t.Skip("no free uid in 61000-61999")
	return 0
}

// buildBinary is the static binary the README documents.
func buildBinary(t *testing.T) string {
	t.Helper()
	return testbin.Build(t, testbin.Module+"/cmd/the-loop")
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, mode))
	require.NoError(t, os.Chmod(to, mode))
}

// copyTree copies a directory (the checkout) and gives it to uid.
func copyTree(t *testing.T, from, to string, uid int) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			if err := os.MkdirAll(dst, 0o700); err != nil {
				return err
			}
		} else {
			copyFile(t, p, dst, 0o600)
		}
		return os.Chown(dst, uid, uid)
	}))
}

// writeRootOnly writes an operator file the way the install steps do.
func (h *host) writeRootOnly(t *testing.T, abs, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(h.path(abs), []byte(content), 0o600))
}

// fakeGitHub answers the issue and pull request listings, recording the
// token it was sent.
func fakeGitHub(t *testing.T) (*httptest.Server, *[]string) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/repos/acme/widgets/issues":
			// One open issue by an account nobody authorized: read, never armed.
			fmt.Fprint(w, `[{"number":7,"title":"Widgets","state":"open","user":{"login":"mallory"},"labels":[]}]`)
			return
		case r.Method == http.MethodGet && r.URL.Path == "/repos/acme/widgets/issues/7/comments",
			r.Method == http.MethodGet && r.URL.Path == "/repos/acme/widgets/pulls":
			fmt.Fprint(w, "[]")
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// configure installs the operator files: config, signing key, token.
func (h *host) configure(t *testing.T, githubURL string, token bool) {
	t.Helper()
	h.writeRootOnly(t, "/etc/the-loop/config.yaml", fmt.Sprintf(`routing:
  authorizedUsers: [alice]
  selfLogins: [the-loop-bot]
polling:
  sources:
    - system: github
      repos: [acme/widgets]
      checkout: %s
integrations:
  github:
    baseUrl: %s/
`, h.path("/var/lib/the-loop/checkouts/widgets"), githubURL))
	h.writeRootOnly(t, "/etc/the-loop/signing.key", "c2lnbmluZy1rZXktZm9yLXRoZS11bml0LXRlc3Q=\n")
	if token {
		h.writeRootOnly(t, "/etc/credstore/the-loop.github-token", testToken)
	}
}

// specifiers expands the unit specifiers the shipped unit uses.
func (h *host) specifiers(s string) string {
	return strings.ReplaceAll(s, "%S", h.path("/var/lib"))
}

// start does what systemd does for u's [Service] before exec — credentials,
// state directory, environment, working directory, umask, user, no new
// privileges — then runs ExecStart's binary with args ("" args: ExecStart's
// own, plus extra).
func (h *host) start(t *testing.T, u unit, args []string, extra ...string) (stdout, stderr string, err error) {
	t.Helper()
	creds := h.path("/run/credentials/" + unitName)
	require.NoError(t, os.RemoveAll(creds))
	require.NoError(t, os.Mkdir(creds, 0o700))
	for _, c := range u.credentials(t) {
		src := h.path(c.path)
		if !c.absolute() {
			src = h.path("/etc/credstore/" + c.path)
		}
		b, rerr := os.ReadFile(src)
		if os.IsNotExist(rerr) && !c.absolute() {
			continue // a credential-store name may be absent
		}
		require.NoError(t, rerr, "systemd would refuse to start: status=243/CREDENTIALS")
		dst := filepath.Join(creds, c.id)
		require.NoError(t, os.WriteFile(dst, b, 0o400))
		require.NoError(t, os.Chown(dst, h.uid, h.uid))
	}
	require.NoError(t, os.Chmod(creds, 0o500))
	require.NoError(t, os.Chown(creds, h.uid, h.uid))

	state := h.path("/var/lib/" + u.one(t, "StateDirectory"))
	mode, perr := strconv.ParseUint(u.one(t, "StateDirectoryMode"), 8, 32)
	require.NoError(t, perr)
	require.NoError(t, os.MkdirAll(state, os.FileMode(mode)))
	require.NoError(t, os.Chmod(state, os.FileMode(mode)))
	require.NoError(t, os.Chown(state, h.uid, h.uid))

	env := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + state, "USER=the-loop", "LOGNAME=the-loop",
		"CREDENTIALS_DIRECTORY=" + creds, "STATE_DIRECTORY=" + state,
	}
	for _, v := range u.all("Environment") {
		env = append(env, h.specifiers(v))
	}
	argv := strings.Fields(u.one(t, "ExecStart"))
	require.Equal(t, "/usr/local/bin/the-loop", argv[0])
	if args != nil {
		argv = append(argv[:1], args...)
	}
	argv = append(argv, extra...)
	for i := range argv {
		argv[i] = h.specifiers(strings.ReplaceAll(argv[i], "${CREDENTIALS_DIRECTORY}", creds))
	}
	argv[0] = h.bin

	wrap := []string{"--reuid=" + strconv.Itoa(h.uid), "--regid=" + strconv.Itoa(h.uid), "--clear-groups"}
	if u.one(t, "NoNewPrivileges") == "yes" {
		wrap = append(wrap, "--no-new-privs")
	}
	wrap = append(wrap, "--", "/bin/sh", "-c", `umask "$0" && exec "$@"`, u.one(t, "UMask"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "setpriv", append(wrap, argv...)...)
	cmd.Env = env
	cmd.Dir = h.specifiers(u.one(t, "WorkingDirectory"))
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// ownedPrivately asserts a file the poller wrote belongs to the service
// user and is readable by nobody else.
func (h *host) ownedPrivately(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	assert.Equal(t, uint32(h.uid), st.Uid, "%s belongs to the service user", p)
	assert.Zero(t, fi.Mode().Perm()&0o077, "%s is %v: UMask=0077 keeps it private", p, fi.Mode().Perm())
}

// owned asserts a path belongs to the service user with exactly mode.
func (h *host) owned(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, uint32(h.uid), fi.Sys().(*syscall.Stat_t).Uid, "%s belongs to the service user", p)
	assert.Equal(t, mode, fi.Mode().Perm(), p)
}

func TestPollerStartsAsTheUnitsUserWithTheDocumentedModes(t *testing.T) {
	h := newHost(t)
	srv, seen := fakeGitHub(t)
	h.configure(t, srv.URL, true)
	stdout, stderr, err := h.start(t, shippedUnit(t), nil, "--once")
	require.NoError(t, err, "stderr:\n%s", stderr)

	var rep struct {
		Sources []struct {
			Container, Error string
			Items            []struct{ WorkItem, Action, Detail string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.Len(t, rep.Sources, 1)
	assert.Equal(t, "acme/widgets", rep.Sources[0].Container)
	assert.Empty(t, rep.Sources[0].Error)
	require.Len(t, rep.Sources[0].Items, 1, stdout)
	assert.Equal(t, "none", rep.Sources[0].Items[0].Action, "an unauthorized author arms nothing: %s", rep.Sources[0].Items[0].Detail)
	assert.Contains(t, *seen, "GET /repos/acme/widgets/issues Bearer "+testToken, "the token came from the credential")

	state := h.path("/var/lib/the-loop")
	h.owned(t, state, 0o700)
	h.ownedPrivately(t, filepath.Join(state, "the-loop.db"))
	// The heartbeat is written 0644 whatever the umask; the 0700 directory keeps it private.
	h.owned(t, filepath.Join(state, "poll-status.json"), 0o644)
	assert.NotContains(t, stdout+stderr, testToken, "the token never reaches output")
}

func TestSigningKeyCredentialReachesTheService(t *testing.T) {
	h := newHost(t)
	srv, _ := fakeGitHub(t)
	h.configure(t, srv.URL, true)
	check := []string{"check", "--config", "${CREDENTIALS_DIRECTORY}/config.yaml", "--all", "--recompute",
		"--format", "json", "--repo", h.path("/var/lib/the-loop/checkouts/widgets")}
	const noKey = "no signing key is configured"
	// Only the credential may supply a key here: the fixture's committed
	// public key would verify without it.
	require.NoError(t, os.Remove(h.path("/var/lib/the-loop/checkouts/widgets/.the-loop/signing.pub")))

	_, stderr, _ := h.start(t, shippedUnit(t), check)
	assert.NotContains(t, stderr, noKey)

	var without unit
	for _, e := range shippedUnit(t) {
		if !(e.key == "LoadCredential" && strings.HasPrefix(e.value, "THE_LOOP_SIGNING_KEY:")) {
			without = append(without, e)
		}
	}
	_, stderr, _ = h.start(t, without, check)
	assert.Contains(t, stderr, noKey, "without the credential the same run has no key")
}

func TestRootOnlyConfigIsUnreadableWithoutCredentials(t *testing.T) {
	// The unit used to pass /etc/the-loop/config.yaml (root, 0600) straight
	// to a service that does not run as root: permission denied, restart loop.
	h := newHost(t)
	srv, _ := fakeGitHub(t)
	h.configure(t, srv.URL, true)
	_, stderr, err := h.start(t, shippedUnit(t), []string{"poll", "--config", h.path("/etc/the-loop/config.yaml")}, "--once")
	require.Error(t, err)
	assert.Contains(t, stderr, "permission denied")
}

func TestMissingTokenCredentialStopsThePollerNamingTheVariable(t *testing.T) {
	h := newHost(t)
	srv, seen := fakeGitHub(t)
	h.configure(t, srv.URL, false)
	_, stderr, err := h.start(t, shippedUnit(t), nil, "--once")
	require.Error(t, err)
	section, _ := installSection(t)
	m := regexp.MustCompile(`(?m)^error: (poll: .*?) …$`).FindStringSubmatch(section)
	require.NotNil(t, m, "docs/poller.md quotes the missing-token message")
	assert.Contains(t, stderr, m[1], "the message docs/poller.md quotes is the one users see")
	assert.Empty(t, *seen, "nothing is sent without a token")
}
