package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Layers a session may be confined by. Each is probed on the host and
// named when missing.
const (
	// LayerUser runs the harness under a dedicated account
	// (sessions.user), so the poller's files and processes are another
	// user's.
	LayerUser = "user"
	// LayerPID runs the session in a private PID namespace with a fresh
	// /proc: it cannot see the poller's processes, and everything it
	// starts dies with it.
	LayerPID = "pid"
	// LayerLandlock restricts the file system to the policy's paths.
	LayerLandlock = "landlock"
)

// SystemReadOnly are the host's directories a session reads: programs,
// libraries, the system configuration and kernel interfaces. A protected
// path inside one is cut out of it.
var SystemReadOnly = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/proc", "/sys", "/run/systemd/resolve", "/nix/store", "/snap"}

// devicesRW and devicesRO are the device files a session uses; the rest of
// /dev (disks, memory) is never granted.
var (
	devicesRW = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx"}
	devicesRO = []string{"/dev/random", "/dev/urandom"}
)

// Policy is one session's confinement: what the launcher applies before it
// starts the harness. The poller writes it (WritePolicy) into the session's
// own directory; the launcher reads it (ReadPolicy) before anything else.
type Policy struct {
	// Layers are the layers to apply (LayerUser, LayerPID, LayerLandlock).
	Layers []string `json:"layers"`
	// UID and GID are the session's account (LayerUser).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// Workdir is where the harness starts: the item's working tree.
	Workdir string `json:"workdir"`
	// Writable are read and written: the working tree, the repository's
	// git directories the tree commits into, the private home and temp
	// directory, and what the operator and the harness add.
	Writable []string `json:"writable"`
	// ReadOnly are read and executed: SystemReadOnly, the-loop's program,
	// the harness's program, and what the operator and the harness add.
	ReadOnly []string `json:"readOnly"`
	// Protected are never granted, whatever the lists say: a read-only
	// directory that holds one is granted around it, and a writable path
	// that holds one is refused.
	Protected []string `json:"protected"`
}

// Has reports whether p applies layer.
func (p Policy) Has(layer string) bool {
	for _, l := range p.Layers {
		if l == layer {
			return true
		}
	}
	return false
}

// Check refuses a policy the launcher cannot apply as written: relative
// paths, a writable path holding a protected one, an unknown layer.
func (p Policy) Check() error {
	for _, l := range p.Layers {
		if l != LayerUser && l != LayerPID && l != LayerLandlock {
			return fmt.Errorf("sandbox policy: unknown layer %q", l)
		}
	}
	if !filepath.IsAbs(p.Workdir) {
		return fmt.Errorf("sandbox policy: workdir %q is not an absolute path", p.Workdir)
	}
	for _, list := range [][]string{p.Writable, p.ReadOnly, p.Protected} {
		for _, path := range list {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("sandbox policy: %q is not an absolute path", path)
			}
		}
	}
	if p.Has(LayerUser) && (p.UID <= 0 || p.GID <= 0) {
		return fmt.Errorf("sandbox policy: the session's account must not be root (uid %d, gid %d)", p.UID, p.GID)
	}
	prot := resolveAll(p.Protected)
	for _, w := range append([]string{p.Workdir}, p.Writable...) {
		rw := resolve(w)
		for _, x := range prot {
			if within(rw, x) || within(x, rw) {
				return fmt.Errorf("sandbox policy: writable %s overlaps %s, which a session must never reach", w, x)
			}
		}
	}
	return nil
}

// WritePolicy writes p to path (0600).
func WritePolicy(path string, p Policy) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write sandbox policy: %w", err)
	}
	return nil
}

// ReadPolicy reads and checks the policy at path.
func ReadPolicy(path string) (Policy, error) {
	var p Policy
	b, err := os.ReadFile(path)
	if err != nil {
		return p, fmt.Errorf("read sandbox policy: %w", err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("sandbox policy %s: %w", path, err)
	}
	return p, p.Check()
}

// Grants are the paths a policy grants, as the launcher hands them to
// Landlock: directories and files apart, protected paths cut out, missing
// paths dropped.
type Grants struct {
	ReadDirs, ReadFiles, WriteDirs, WriteFiles []string
}

// Grants resolves p's lists against the file system.
func (p Policy) Grants() (Grants, error) {
	var g Grants
	prot := resolveAll(p.Protected)
	seen := map[string]bool{}
	add := func(path string, write bool) {
		if seen[path] {
			return
		}
		fi, err := os.Stat(path)
		if err != nil {
			return
		}
		seen[path] = true
		switch {
		case write && fi.IsDir():
			g.WriteDirs = append(g.WriteDirs, path)
		case write:
			g.WriteFiles = append(g.WriteFiles, path)
		case fi.IsDir():
			g.ReadDirs = append(g.ReadDirs, path)
		default:
			g.ReadFiles = append(g.ReadFiles, path)
		}
	}
	for _, w := range append([]string{p.Workdir}, p.Writable...) {
		if _, err := os.Stat(w); err != nil && w == p.Workdir {
			return g, fmt.Errorf("sandbox: working tree %s: %w", w, err)
		}
		add(resolve(w), true)
	}
	for _, d := range devicesRW {
		add(d, true)
	}
	add("/dev/pts", true)
	for _, d := range devicesRO {
		add(d, false)
	}
	for _, r := range p.ReadOnly {
		for _, path := range around(resolve(r), prot, 0) {
			add(path, false)
		}
	}
	for _, l := range [][]string{g.ReadDirs, g.ReadFiles, g.WriteDirs, g.WriteFiles} {
		sort.Strings(l)
	}
	return g, nil
}

// around returns root, or, when protected paths lie inside it, its
// entries granted around them, recursively; nothing when root is itself
// protected or inside a protected path.
func around(root string, prot []string, depth int) []string {
	var inside []string
	for _, x := range prot {
		if within(root, x) {
			return nil
		}
		if within(x, root) {
			inside = append(inside, x)
		}
	}
	if len(inside) == 0 {
		return []string{root}
	}
	entries, err := os.ReadDir(root)
	if err != nil || depth > 32 {
		return nil // fail closed: what cannot be listed is not granted
	}
	var out []string
	for _, e := range entries {
		child := filepath.Join(root, e.Name())
		real := resolve(child)
		if real != child {
			// A link: grant its target only when that is clear of every
			// protected path.
			clear := true
			for _, x := range prot {
				clear = clear && !within(real, x) && !within(x, real)
			}
			if clear {
				out = append(out, real)
			}
			continue
		}
		out = append(out, around(child, prot, depth+1)...)
	}
	return out
}

// within reports whether path is base or lies under it.
func within(path, base string) bool {
	if path == base {
		return true
	}
	rel, err := filepath.Rel(base, path)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && filepath.IsLocal(rel)
}

// resolve makes path absolute and follows its links, as far as they exist.
func resolve(path string) string {
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	// Resolve the longest existing prefix.
	dir, base := filepath.Split(path)
	if dir == "" || dir == path || base == "" {
		return path
	}
	return filepath.Join(resolve(filepath.Clean(dir)), base)
}

func resolveAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p != "" {
			out = append(out, resolve(p))
		}
	}
	return out
}
