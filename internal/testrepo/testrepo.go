// Package testrepo gives tests a bare git remote whose main branch holds
// the files they name, and a clone of it, made with git once per test
// process and copied for every test after the first.
//
// A rig that runs `git init --bare`, clones, commits, pushes and clones
// again starts ten processes or more per test; a copy starts none.
//
//	remote, source := testrepo.Seed(t, t.TempDir(), map[string]string{"README.md": "hello\n"})
//
// A package that seeds calls Clean from its TestMain once its tests ran.
package testrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	root  string                // this process's templates, one folder per set of files
	made  = map[string]string{} // key of the files → template folder
	fails = map[string]error{}
)

// Seed copies into dir a bare remote, dir/remote.git, whose HEAD is main
// holding files in one commit ("seed"), and dir/source, a clone of it whose
// origin is that remote. It returns their paths.
func Seed(tb testing.TB, dir string, files map[string]string) (remote, source string) {
	tb.Helper()
	tmpl, err := template(files)
	if err != nil {
		tb.Fatalf("testrepo: %v", err)
	}
	if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
		tb.Fatalf("testrepo: copy the seeded repositories: %v", err)
	}
	remote, source = filepath.Join(dir, "remote.git"), filepath.Join(dir, "source")
	config := filepath.Join(source, ".git", "config")
	b, err := os.ReadFile(config)
	if err != nil {
		tb.Fatalf("testrepo: %v", err)
	}
	from := "url = " + filepath.Join(tmpl, "remote.git") + "\n"
	if !strings.Contains(string(b), from) {
		tb.Fatalf("testrepo: the clone's config names no origin %q:\n%s", from, b)
	}
	if err := os.WriteFile(config, []byte(strings.ReplaceAll(string(b), from, "url = "+remote+"\n")), 0o644); err != nil {
		tb.Fatalf("testrepo: %v", err)
	}
	return remote, source
}

// Clean removes this process's templates.
func Clean() {
	mu.Lock()
	defer mu.Unlock()
	if root != "" {
		_ = os.RemoveAll(root)
		root, made, fails = "", map[string]string{}, map[string]error{}
	}
}

// template is the folder holding remote.git and source for files, made
// on the first call for them.
func template(files map[string]string) (string, error) {
	key := keyOf(files)
	mu.Lock()
	defer mu.Unlock()
	if dir, ok := made[key]; ok {
		return dir, nil
	}
	if err, ok := fails[key]; ok {
		return "", err
	}
	if root == "" {
		r, err := os.MkdirTemp("", "the-loop-testrepo-")
		if err != nil {
			return "", err
		}
		root = r
	}
	dir := filepath.Join(root, key)
	if err := seed(dir, files); err != nil {
		fails[key] = err
		return "", err
	}
	made[key] = dir
	return dir, nil
}

func keyOf(files map[string]string) string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", name, files[name])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// seed makes dir/remote.git and dir/source with git, in an environment of
// its own (no system or user config).
func seed(dir string, files map[string]string) error {
	work := filepath.Join(dir, "seed")
	for name, body := range files {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	remote := filepath.Join(dir, "remote.git")
	steps := []struct {
		in   string
		args []string
	}{
		{dir, []string{"init", "--quiet", "--bare", remote}},
		{remote, []string{"symbolic-ref", "HEAD", "refs/heads/main"}},
		// Tests push to it again and again; like a hosted remote, it runs no
		// git gc after each push.
		{remote, []string{"config", "receive.autoGC", "false"}},
		{work, []string{"init", "--quiet"}},
		{work, []string{"add", "-A"}},
		{work, []string{"commit", "--quiet", "-m", "seed"}},
		{work, []string{"push", "--quiet", remote, "HEAD:refs/heads/main"}},
		{dir, []string{"clone", "--quiet", remote, filepath.Join(dir, "source")}},
	}
	for _, s := range steps {
		cmd := exec.Command("git", append([]string{"-C", s.in, "-c", "user.name=Seed", "-c", "user.email=seed@example.invalid"}, s.args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(s.args, " "), err, out)
		}
	}
	return os.RemoveAll(work)
}
