// Package testbin builds the repository's programs for tests once per
// source state of the module, shared by every test process of a `go test`
// run.
//
// `go test ./...` runs each package's tests in a process of its own, and
// `go build -o` links again every time, even when nothing changed: a test
// that built cmd/the-loop itself paid a link of the whole binary in every
// package, and every test. Build instead keeps each binary in a shared
// folder, $TMPDIR/the-loop-testbin-<uid>/<key>/, where the key is a hash of the
// module's root path and of every file a build can read (non-test Go files,
// go.mod, go.sum, embedded files), of the Go version and of the build's own
// flags. The first process to need a binary builds it under an exclusive
// file lock; the others wait on the lock and use it. An edit gives a new
// key, so no process ever runs a binary older than its own source, and two
// checkouts of the repository (git worktrees testing side by side) never
// share one.
//
// Each process holds a shared lock on the folders it uses until it exits;
// folders no process holds and older than an hour are removed when a new
// one is made, so the cache does not grow with every edit.
//
// Every program is built the way the README documents a release,
// CGO_ENABLED=0 go build -trimpath, whatever the test process's own
// environment: tests run what ships, and a test run with cgo on (the
// default where a C compiler is installed) does not link a second,
// externally linked copy of each program.
//
// Use it from any test:
//
//	bin := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
//	versioned := testbin.BuildWith(t, "github.com/the-loop/the-loop/cmd/the-loop", testbin.Options{LDFlags: "-X main.version=v9"})
//
// THE_LOOP_TESTBIN_DIR moves the shared folder (CI can point it at a cache).
package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/the-loop/the-loop/internal/lockfile"
)

// Module is this repository's module path.
const Module = "github.com/the-loop/the-loop"

// Options are the build's own flags; each set of options is a binary of its own.
type Options struct {
	// LDFlags is passed as -ldflags (for example "-X main.version=v9").
	LDFlags string
}

// Build compiles the main package pkg (an import path such as
// github.com/the-loop/the-loop/agents/harness/fakeharness) and returns
// the executable's path, building it at most once per source state.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	return BuildWith(tb, pkg, Options{})
}

// BuildWith is Build with build options.
func BuildWith(tb testing.TB, pkg string, opt Options) string {
	tb.Helper()
	p, err := build(pkg, opt)
	if err != nil {
		tb.Fatalf("testbin: %v", err)
	}
	return p
}

var (
	mu    sync.Mutex
	built = map[string]string{} // name in the key folder → path, this process
	state struct {
		once sync.Once
		dir  string // the key folder
		root string // the module root
		err  error
	}
)

func build(pkg string, opt Options) (string, error) {
	state.once.Do(func() { state.root, state.dir, state.err = keyDir() })
	if state.err != nil {
		return "", state.err
	}
	name := binaryName(pkg, opt)
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[name]; ok {
		return p, nil
	}
	out := filepath.Join(state.dir, name)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lock, err := lockfile.Acquire(ctx, out+".lock")
	if err != nil {
		return "", fmt.Errorf("wait for the build of %s: %w", pkg, err)
	}
	defer func() { _ = lock.Release() }()
	if fi, err := os.Stat(out); err != nil || !fi.Mode().IsRegular() {
		if err := goBuild(state.root, pkg, opt, out); err != nil {
			return "", err
		}
	}
	built[name] = out
	return out, nil
}

// goBuild builds pkg into a temporary name beside out and renames it into
// place, so a reader never sees a half-written executable.
func goBuild(root, pkg string, opt Options, out string) error {
	tmp := out + ".tmp"
	args := []string{"build", "-trimpath", "-o", tmp}
	env := append(os.Environ(), "CGO_ENABLED=0")
	if opt.LDFlags != "" {
		args = append(args, "-ldflags", opt.LDFlags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir, cmd.Env = root, env
	if b, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("go %s: %v\n%s", strings.Join(append(args, pkg), " "), err, strings.TrimSpace(string(b)))
	}
	return os.Rename(tmp, out)
}

// binaryName is the executable's file name: the package's last element and
// a short hash of the options when there are any.
func binaryName(pkg string, opt Options) string {
	name := path.Base(pkg)
	if opt == (Options{}) {
		return name
	}
	h := sha256.Sum256([]byte(opt.LDFlags))
	return name + "-" + hex.EncodeToString(h[:4])
}

// keyDir finds the module root, hashes its source and returns the shared
// folder for that state, made and held (shared) for this process.
func keyDir() (root, dir string, err error) {
	root, err = ModuleRoot()
	if err != nil {
		return "", "", err
	}
	key, err := sourceKey(root)
	if err != nil {
		return "", "", err
	}
	base := os.Getenv("THE_LOOP_TESTBIN_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("the-loop-testbin-%d", os.Getuid()))
	}
	if err := privateDir(base); err != nil {
		return "", "", err
	}
	dir = filepath.Join(base, key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("make the shared build folder: %w", err)
	}
	if err := holdShared(filepath.Join(dir, "in-use")); err != nil {
		return "", "", err
	}
	removeUnused(base, key)
	return root, dir, nil
}

// ModuleRoot is the nearest folder above the working directory (a test's
// package folder) holding this module's go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module "+Module+"\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of " + Module + " above the working directory")
		}
		dir = parent
	}
}

// SourceFiles lists, sorted, every file under the module root a build of
// the module can read: everything but tests (*_test.go, testdata), version
// control, node_modules and folders Go ignores (".x", "_x").
func SourceFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !strings.HasSuffix(name, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// sourceKey hashes the module root's path, the Go version and the content of
// every file a build of the module can read (SourceFiles).
func sourceKey(root string) (string, error) {
	files, err := SourceFiles(root)
	if err != nil {
		return "", fmt.Errorf("hash the module's source: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s/%s\x00", root, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return "", fmt.Errorf("hash the module's source: %w", err)
		}
		fmt.Fprintf(h, "%s\x00", strings.TrimPrefix(p, root))
		_, err = io.Copy(h, f)
		_ = f.Close()
		if err != nil {
			return "", fmt.Errorf("hash the module's source: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// privateDir makes base (0700) or checks that the one there is a folder of
// this user's that nobody else may write: the programs in it are run.
func privateDir(base string) error {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fmt.Errorf("make the shared build folder: %w", err)
	}
	fi, err := os.Lstat(base)
	if err != nil {
		return fmt.Errorf("make the shared build folder: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("the shared build folder %s is not a folder of this user's that only it may write; remove it, or set THE_LOOP_TESTBIN_DIR", base)
	}
	return nil
}

// removeUnused removes the key folders under base that no process holds and
// that are older than an hour (a folder just made is not yet held).
func removeUnused(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < time.Hour {
			continue
		}
		if unused(filepath.Join(dir, "in-use")) {
			_ = os.RemoveAll(dir)
		}
	}
}
