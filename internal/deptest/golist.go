package deptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Target is the platform the binary's dependencies are listed for: the
// static Linux build the release ships (.ci/static.sh).
var Target = []string{"GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0"}

// Module is the module's root folder and import path.
type Module struct {
	Dir, Path string
}

// FindModule returns the module that holds dir.
func FindModule(dir string) (Module, error) {
	out, err := goList(dir, nil, "-m", "-f", "{{.Dir}} {{.Path}}")
	if err != nil {
		return Module{}, err
	}
	d, p, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		return Module{}, fmt.Errorf("go list -m printed %q, not a folder and a module path", out)
	}
	return Module{Dir: d, Path: p}, nil
}

// Rel returns an import path relative to the module ("." for its root),
// and false for a path outside it.
func (m Module) Rel(importPath string) (string, bool) {
	if importPath == m.Path {
		return ".", true
	}
	rest, ok := strings.CutPrefix(importPath, m.Path+"/")
	return rest, ok
}

// Packages lists every package of the module with the module packages its
// non-test files import.
func (m Module) Packages() ([]Package, error) {
	out, err := goList(m.Dir, nil, "-e", "-json=ImportPath,Imports,Error", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -json: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		rel, ok := m.Rel(p.ImportPath)
		if !ok {
			continue
		}
		pkg := Package{Path: rel}
		for _, imp := range p.Imports {
			if r, ok := m.Rel(imp); ok {
				pkg.Imports = append(pkg.Imports, r)
			}
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs, nil
}

// Dep is one package a program is built from.
type Dep struct {
	ImportPath string
	Standard   bool
}

// Deps lists the packages the main package pkg (relative, e.g.
// cmd/the-loop) is built from for Target, sorted.
func (m Module) Deps(pkg string) ([]Dep, error) {
	out, err := goList(m.Dir, Target, "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "./"+pkg)
	if err != nil {
		return nil, err
	}
	var deps []Dep
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		deps = append(deps, Dep{ImportPath: path, Standard: std == "true"})
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].ImportPath < deps[j].ImportPath })
	return deps, nil
}

// TopLevelFolders lists the folders at the module root that git tracks or
// would track (ignored ones, like a local build output, are left out).
func (m Module) TopLevelFolders() ([]string, error) {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	cmd.Dir = m.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", m.Dir, err)
	}
	seen := map[string]bool{}
	var dirs []string
	for _, f := range strings.Split(string(out), "\n") {
		top, _, nested := strings.Cut(f, "/")
		if !nested || seen[top] {
			continue
		}
		if fi, err := os.Stat(filepath.Join(m.Dir, top)); err != nil || !fi.IsDir() {
			continue // a file listed but deleted from the tree
		}
		seen[top] = true
		dirs = append(dirs, top)
	}
	sort.Strings(dirs)
	return dirs, nil
}

func goList(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
