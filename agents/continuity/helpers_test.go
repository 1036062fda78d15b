package continuity

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// clock is a settable test clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func (c *clock) advance(d time.Duration) { c.now = c.now.Add(d) }

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// gitRepo makes a real repository in a temp dir, with origin when remote
// is non-empty.
func gitRepo(t *testing.T, remote string) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", ".")
	if remote != "" {
		runGit(t, dir, "remote", "add", "origin", remote)
	}
	return dir
}

// openSet opens dir with a test clock and harness.
func openSet(t *testing.T, dir string, c *clock) *Set {
	t.Helper()
	s, err := Open(dir)
	require.NoError(t, err)
	s.Now = c.Now
	s.Harness = "test-harness"
	return s
}

// newLive returns a repository with a freshly initialised set.
func newLive(t *testing.T) (*Set, *clock) {
	t.Helper()
	c := &clock{now: t0}
	s := openSet(t, gitRepo(t, "https://github.com/acme/widgets.git"), c)
	_, err := s.Init(InitOptions{Goal: "ship the widget importer", Scope: "importer package only", Rationale: "customers asked"})
	require.NoError(t, err)
	return s, c
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

func setFile(s *Set, name string) string { return filepath.Join(s.Dir(), name) }

func loadParts(t *testing.T, s *Set) (DeathPoint, Notes, TaskGraph) {
	t.Helper()
	dp, err := parseDeathPoint([]byte(readFile(t, setFile(s, DeathPointFile))))
	require.NoError(t, err)
	n, err := parseNotes([]byte(readFile(t, setFile(s, NotesFile))))
	require.NoError(t, err)
	g, err := parseGraph([]byte(readFile(t, setFile(s, GraphFile))))
	require.NoError(t, err)
	return dp, n, g
}

func mkdir(p string) error { return os.MkdirAll(p, 0o755) }
