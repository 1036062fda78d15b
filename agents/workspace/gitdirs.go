package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/the-loop/the-loop/internal/gitsafe"
	"github.com/the-loop/the-loop/internal/proc"
)

// GitDirs are what a session working in the tree needs of git: writable,
// the tree's own repository's objects, refs and logs and the tree's
// administrative directory (its index and HEAD); read-only, that
// repository as a whole (its config, which the loop wrote) and the source's
// objects it borrows. Nothing of the source but its objects, and nothing
// of another item, is among them: a session cannot write the source's refs
// or config, nor move another item's branch. They come from what the loop
// made, never from the tree's .git file, which the tree's next session
// finds restored first. Nil for a tree the loop has not pinned.
func (t *Tree) GitDirs() (writable, readOnly []string) {
	if !t.pin.Pinned() {
		return nil, nil
	}
	_ = t.restore()
	repo := t.pin.GitDir
	writable = []string{filepath.Join(repo, "objects"), filepath.Join(repo, "refs"), filepath.Join(repo, "logs"), t.pin.Admin}
	for _, d := range writable {
		_ = os.MkdirAll(d, 0o755)
	}
	return writable, []string{repo, filepath.Join(t.m.common, "objects")}
}

// Unpushed counts the commits of the tree's branch the remote lacks, as
// the source last fetched or pushed the remote's branch (no network): a
// session's commits, which the loop publishes (Push), as a session never
// pushes.
func (t *Tree) Unpushed(ctx context.Context) (int, error) { return t.unpushed(ctx) }

// unpushed counts the commits of the tree's branch that the remote's
// branch, as the source last fetched or pushed it, lacks — every remote
// branch the source knows when the remote has none of that name yet.
func (t *Tree) unpushed(ctx context.Context) (int, error) {
	m := t.m
	local, err := t.head(ctx)
	if err != nil || local == "" {
		return 0, err
	}
	not := []string{}
	if sha, err := m.revParse(ctx, m.source, m.remoteRef(t.Branch)); err != nil {
		return 0, err
	} else if sha == local {
		return 0, nil // the remote has the branch's commit: nothing to count
	} else if sha != "" {
		not = append(not, sha)
	} else {
		r, err := m.git(ctx, m.source, nil, "for-each-ref", "--format=%(objectname)", "refs/remotes/"+m.remote+"/")
		if err != nil {
			return 0, err
		}
		not = strings.Fields(r.out)
	}
	args := []string{"rev-list", "--count", local}
	for _, sha := range not {
		args = append(args, "^"+sha)
	}
	r, err := t.git(ctx, nil, args...)
	if err != nil {
		return 0, fmt.Errorf("count the commits %s has not pushed: %w", t.Branch, err)
	}
	n := 0
	_, _ = fmt.Sscan(r.out, &n)
	return n, nil
}

// DefaultBranchFile reads the file at rel (slash-separated) as the
// remote's default branch has it committed, as the source last fetched it
// (refs/remotes/<remote>/HEAD, else the source's HEAD): what no session
// can change. found is false when that commit has no such file.
func (m *Manager) DefaultBranchFile(ctx context.Context, rel string) (data []byte, ref string, found bool, err error) {
	ref = "refs/remotes/" + m.remote + "/HEAD"
	if sha, _ := m.revParse(ctx, m.source, ref); sha == "" {
		ref = "HEAD"
	}
	out, err := m.git(ctx, m.source, nil, "cat-file", "blob", ref+":"+rel)
	if _, ok := err.(*gitError); ok {
		return nil, ref, false, nil // no such file (or no such commit) there
	}
	if err != nil {
		return nil, ref, false, fmt.Errorf("read %s at %s: %w", rel, ref, err)
	}
	return []byte(out.out + "\n"), ref, true, nil
}

// ProtectedFile reads rel as the remote's default branch has it committed
// (DefaultBranchFile) in the checkout the tree at dir was made from, when
// dir is a tree the loop made (pinned); nothing is read from the tree. Any
// process may call it: git runs with the allow-listed environment.
func ProtectedFile(ctx context.Context, dir, rel string) (data []byte, ref string, pinned, found bool, err error) {
	pin := gitsafe.Open(dir)
	if !pin.Pinned() {
		return nil, "", false, false, nil
	}
	key, stamp := pin.Source+"\x00"+pin.Remote+"\x00"+rel, refsStamp(pin.Source, pin.Remote)
	if v, ok := protectedFiles.Load(key); ok && stamp != "" && v.(protectedFile).stamp == stamp {
		c := v.(protectedFile)
		return c.data, c.ref, true, c.found, nil
	}
	e, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
	if err != nil {
		return nil, "", true, false, err
	}
	m := &Manager{source: pin.Source, remote: pin.Remote, gitProgram: "git",
		env: append(withoutVars(gitsafe.Repo{}.Environ(e.List()), "GIT_TERMINAL_PROMPT", "LC_ALL"), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")}
	data, ref, found, err = m.DefaultBranchFile(ctx, rel)
	if err == nil && stamp != "" {
		protectedFiles.Store(key, protectedFile{stamp: stamp, data: data, ref: ref, found: found})
	}
	return data, ref, true, found, err
}

// protectedFiles caches ProtectedFile's reads while the source's refs
// that name the default branch are unchanged (every call of the service on
// an item's tree reads it).
var protectedFiles sync.Map // source, remote, rel -> protectedFile

type protectedFile struct {
	stamp string
	data  []byte
	ref   string
	found bool
}

// refsStamp identifies the state of the source's refs that decide its
// default branch's commit: HEAD and the remote's HEAD (symbolic refs, with
// the files they name) and packed-refs. "" when the source's git
// directory is not a plain one (nothing is cached then).
func refsStamp(source, remote string) string {
	gitDir := filepath.Join(source, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return ""
	}
	var b strings.Builder
	stat := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s:%d.%d|", p, fi.ModTime().UnixNano(), fi.Size())
		} else {
			b.WriteString(p + ":-|")
		}
	}
	stat(filepath.Join(gitDir, "packed-refs"))
	for _, sym := range []string{"HEAD", filepath.Join("refs", "remotes", remote, "HEAD")} {
		p := filepath.Join(gitDir, sym)
		stat(p)
		if body, err := os.ReadFile(p); err == nil {
			if target, ok := strings.CutPrefix(strings.TrimSpace(string(body)), "ref: "); ok && filepath.IsLocal(target) {
				stat(filepath.Join(gitDir, filepath.FromSlash(target)))
			}
		}
	}
	return b.String()
}

// MaybeUnpushed is a cheap first look (one git command, no network) at
// whether the tree's branch holds commits the remote lacks: false when the
// branch stands where the loop last saw the remote's (the tree's
// repository's refs/remotes/<remote>/<branch>, which the loop keeps). A
// session can write that ref, so true asks Unpushed, which reads the
// source's; a session that forged it to hide its commits only keeps them
// from being pushed.
func (t *Tree) MaybeUnpushed(ctx context.Context) bool {
	r, err := t.git(ctx, nil, "rev-parse", "HEAD", t.m.remoteRef(t.Branch))
	if err != nil {
		return true
	}
	f := strings.Fields(r.out)
	return len(f) != 2 || f[0] != f[1]
}
