//go:build unix

package testbin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module writes a copy of a tiny module named like this one: a main
// package cmd/hello, and what a build never reads (a test, testdata).
func module(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                      "module " + Module + "\n\ngo 1.22\n",
		"cmd/hello/main.go":           "package main\n\nfunc main() { println(\"hello\") }\n",
		"cmd/hello/main_test.go":      "package main\n",
		"cmd/hello/testdata/input.md": "x\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return root
}

func TestTheKeyFollowsWhatABuildReads(t *testing.T) {
	root := module(t)
	key := func() string {
		k, err := sourceKey(root)
		require.NoError(t, err)
		return k
	}
	k1 := key()
	require.NoError(t, os.WriteFile(filepath.Join(root, "cmd/hello/main_test.go"), []byte("package main\n\n// changed\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "cmd/hello/testdata/input.md"), []byte("changed\n"), 0o644))
	assert.Equal(t, k1, key(), "tests and testdata are not built into a program")

	require.NoError(t, os.WriteFile(filepath.Join(root, "cmd/hello/main.go"), []byte("package main\n\nfunc main() { println(\"bye\") }\n"), 0o644))
	k2 := key()
	assert.NotEqual(t, k1, k2, "an edited source is a new key")
	require.NoError(t, os.WriteFile(filepath.Join(root, "cmd/hello/greeting.txt"), []byte("hi\n"), 0o644))
	assert.NotEqual(t, k2, key(), "a file a program could embed is part of the key")

	other := module(t)
	k3, err := sourceKey(other)
	require.NoError(t, err)
	assert.NotEqual(t, k1, k3, "two checkouts never share a key")
}

// TestHelperBuild is the child process of TestOneBuildServesEveryProcess.
func TestHelperBuild(t *testing.T) {
	if os.Getenv("TESTBIN_CHILD") == "" {
		t.Skip("run by TestOneBuildServesEveryProcess")
	}
	p := Build(t, Module+"/cmd/hello")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	out, err := exec.Command(p).CombinedOutput()
	require.NoError(t, err)
	os.Stdout.WriteString("built " + p + " " + strings.TrimSpace(string(out)) + " inode " + inode(fi) + "\n")
}

func TestOneBuildServesEveryProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	root, cache := module(t), t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	run := func() *exec.Cmd {
		cmd := exec.Command(self, "-test.run=^TestHelperBuild$", "-test.v")
		cmd.Dir = filepath.Join(root, "cmd", "hello")
		cmd.Env = append(os.Environ(), "TESTBIN_CHILD=1", "THE_LOOP_TESTBIN_DIR="+cache)
		cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
		require.NoError(t, cmd.Start())
		return cmd
	}
	a, b := run(), run()
	var lines []string
	for _, c := range []*exec.Cmd{a, b} {
		require.NoError(t, c.Wait(), "%s%s", c.Stdout, c.Stderr)
		for _, l := range strings.Split(c.Stdout.(*bytes.Buffer).String(), "\n") {
			if strings.HasPrefix(l, "built ") {
				lines = append(lines, l)
			}
		}
	}
	require.Len(t, lines, 2)
	assert.Equal(t, lines[0], lines[1], "both processes run the same executable, built once (same path and inode)")
	assert.Contains(t, lines[0], " hello inode ")
	assert.True(t, strings.HasPrefix(lines[0], "built "+cache+string(filepath.Separator)), lines[0])

	c := run()
	require.NoError(t, c.Wait(), "%s%s", c.Stdout, c.Stderr)
	assert.Contains(t, c.Stdout.(*bytes.Buffer).String(), lines[0], "a later run reuses it")
}

func TestASharedFolderOthersMayWriteIsRefused(t *testing.T) {
	base := filepath.Join(t.TempDir(), "bins")
	require.NoError(t, os.Mkdir(base, 0o777))
	require.NoError(t, os.Chmod(base, 0o777))
	err := privateDir(base)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a folder of this user's that only it may write")
	require.NoError(t, os.Chmod(base, 0o700))
	assert.NoError(t, privateDir(base))
}

func inode(fi os.FileInfo) string {
	return strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10)
}

func TestEveryProgramIsBuiltAsTheReleaseIs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	t.Setenv("CGO_ENABLED", "1") // a test process with cgo on, as where a C compiler is installed
	root := module(t)
	out := filepath.Join(t.TempDir(), "hello")
	require.NoError(t, goBuild(root, Module+"/cmd/hello", Options{}, out))
	info, err := exec.Command("go", "version", "-m", out).CombinedOutput()
	require.NoError(t, err, "%s", info)
	assert.Regexp(t, `(?m)^\s+build\s+CGO_ENABLED=0$`, string(info), "the README's release build: CGO_ENABLED=0")
	assert.Regexp(t, `(?m)^\s+build\s+-trimpath=true$`, string(info), "the README's release build: -trimpath")
	assert.Equal(t, "hello", binaryName(Module+"/cmd/hello", Options{}))
	assert.NotEqual(t, binaryName(Module+"/cmd/hello", Options{LDFlags: "-X main.version=v1"}),
		binaryName(Module+"/cmd/hello", Options{LDFlags: "-X main.version=v2"}), "each set of options is a program of its own")
}
