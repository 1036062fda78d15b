package deptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// binary is the program whose dependencies are pinned, and depsFile the
// committed list.
const (
	binary   = "cmd/the-loop"
	depsFile = "testdata/cmd-the-loop.deps"
)

func module(t *testing.T) Module {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; the layout rules run go list")
	}
	m, err := FindModule(".")
	require.NoError(t, err)
	return m
}

// TestNoImportClimbs: every package lives in a room, and no non-test
// import climbs a layer, crosses to a room beside it or reaches a
// test-support package from production code.
func TestNoImportClimbs(t *testing.T) {
	m := module(t)
	pkgs, err := m.Packages()
	require.NoError(t, err)
	require.NotEmpty(t, pkgs)
	for _, v := range Check(pkgs) {
		t.Error(v)
	}
}

// TestCheckRefuses proves the check can fail, each rule on its own.
func TestCheckRefuses(t *testing.T) {
	tests := []struct {
		name string
		pkg  Package
		want string // "" = allowed
	}{
		{"below", Package{Path: "service", Imports: []string{"runtime", "internal/proc", "config"}}, ""},
		{"own room", Package{Path: "runtime/hooks/gates", Imports: []string{"runtime/hooks/specdir", "runtime"}}, ""},
		{"climbs a layer", Package{Path: "config", Imports: []string{"agents/critic"}}, "config imports agents/critic: the import climbs: config may import its own room and internal;"},
		{"climbs from a leaf", Package{Path: "internal/markdown", Imports: []string{"runtime"}}, "internal/markdown imports runtime: the import climbs: internal may import nothing of the module outside its own room;"},
		{"the engine reaches the acting half", Package{Path: "runtime/hooks/work", Imports: []string{"agents/workspace"}}, "the import climbs: runtime may import its own room and handoff, integrations, store, graphs, skills, config, internal;"},
		{"a room beside it", Package{Path: "store", Imports: []string{"integrations"}}, "store imports integrations: store and integrations are rooms of one layer, and neither imports the other"},
		{"a fake from production", Package{Path: "service", Imports: []string{"agents/harness/fakeharness"}}, "service imports agents/harness/fakeharness: it exists for tests;"},
		{"a test helper from production", Package{Path: "cmd/the-loop", Imports: []string{"internal/testbin"}}, "it exists for tests"},
		{"a test package from production", Package{Path: "store", Imports: []string{"runtime/runtimetest"}}, "it exists for tests"},
		{"a fake beside what it fakes", Package{Path: "integrations/providertest/fakegithub", Imports: []string{"integrations/providertest", "integrations"}}, ""},
		{"a test package over what it tests", Package{Path: "runtime/runtimetest", Imports: []string{"runtime", "store"}}, ""},
		{"the demo drives a fake", Package{Path: "examples/demo/scenario", Imports: []string{"integrations/providertest", "service"}}, ""},
		{"a folder that is no room", Package{Path: "tools/gen", Imports: nil}, "tools/gen is in no room"},
		{"the module root", Package{Path: ".", Imports: nil}, ". is in no room"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check([]Package{tt.pkg})
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Contains(t, got[0].String(), tt.want)
		})
	}
}

func TestExceptionsAllowOnlyTheirImport(t *testing.T) {
	saved := Exceptions
	t.Cleanup(func() { Exceptions = saved })
	Exceptions = []Exception{{From: "config", To: "agents/critic", Why: "a test"}}
	assert.Empty(t, Check([]Package{{Path: "config", Imports: []string{"agents/critic"}}}))
	assert.Len(t, Check([]Package{{Path: "config", Imports: []string{"agents/sessions"}}}), 1, "an exception names one import")
}

func TestRoomsAreNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, rooms := range Layers {
		for _, r := range rooms {
			assert.False(t, seen[r.Path], "room %s is named twice", r.Path)
			assert.NotContains(t, r.Path, "/", "a room is a top-level folder")
			assert.NotEmpty(t, r.Holds, r.Path)
			seen[r.Path] = true
		}
	}
	for _, f := range Folders {
		assert.False(t, seen[f.Path], "folder %s is named twice", f.Path)
		seen[f.Path] = true
	}
	for _, r := range MayImportTestSupport {
		_, _, ok := RoomOf(r)
		assert.True(t, ok, "%s is no room", r)
	}
}

// TestEveryTopLevelFolderHasAPlace: each folder at the root is a room or a
// folder of the rules, and every room or folder the rules name exists,
// unless it is planned.
func TestEveryTopLevelFolderHasAPlace(t *testing.T) {
	m := module(t)
	dirs, err := m.TopLevelFolders()
	require.NoError(t, err)
	placed := map[string]Room{}
	for _, rooms := range Layers {
		for _, r := range rooms {
			placed[r.Path] = r
		}
	}
	for _, f := range Folders {
		placed[f.Path] = f
	}
	for _, d := range dirs {
		r, ok := placed[d]
		if !ok {
			t.Errorf("top-level folder %s/ has no place: add it to the Layers (Go) or the Folders (no Go) of internal/deptest/rooms.go, with one line on what it holds", d)
			continue
		}
		assert.Empty(t, r.Planned, "%s/ exists now: drop its Planned mark in internal/deptest/rooms.go", d)
	}
	for p, r := range placed {
		if r.Planned == "" {
			assert.True(t, slices.Contains(dirs, p), "internal/deptest/rooms.go names %s/, which does not exist; remove it or mark it Planned", p)
		}
	}
}

// TestBinaryDependencies: the packages the-loop is built from, standard
// library excluded, are the committed list, and none of them exists for
// tests. UPDATE_DEPS=1 rewrites the list after a reviewed change.
func TestBinaryDependencies(t *testing.T) {
	m := module(t)
	deps, err := m.Deps(binary)
	require.NoError(t, err)
	var got []string
	for _, d := range deps {
		if rel, ok := m.Rel(d.ImportPath); ok && IsTestSupport(rel) {
			t.Errorf("%s is built from %s, which exists for tests", binary, d.ImportPath)
		}
		if d.ImportPath == "testing" || d.ImportPath == "net/http/httptest" || strings.HasPrefix(d.ImportPath, "github.com/stretchr/testify") {
			t.Errorf("%s is built from %s, a testing package", binary, d.ImportPath)
		}
		if !d.Standard {
			got = append(got, d.ImportPath)
		}
	}
	require.NotEmpty(t, got)
	want := "# The packages " + binary + " is built from for " + strings.Join(Target, " ") + ", the standard library left out.\n" +
		"# Regenerate after reviewing a change: UPDATE_DEPS=1 go test ./internal/deptest -run TestBinaryDependencies\n" +
		strings.Join(got, "\n") + "\n"
	if os.Getenv("UPDATE_DEPS") != "" {
		require.NoError(t, os.WriteFile(depsFile, []byte(want), 0o644))
	}
	data, err := os.ReadFile(depsFile)
	require.NoError(t, err, "run UPDATE_DEPS=1 go test ./internal/deptest -run TestBinaryDependencies to write the list")
	if string(data) != want {
		var have []string
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				have = append(have, l)
			}
		}
		var added, gone []string
		for _, p := range got {
			if !slices.Contains(have, p) {
				added = append(added, p)
			}
		}
		for _, p := range have {
			if !slices.Contains(got, p) {
				gone = append(gone, p)
			}
		}
		t.Errorf("%s's dependencies changed (new: %v; gone: %v); if that is meant, run UPDATE_DEPS=1 go test ./internal/deptest -run TestBinaryDependencies and commit %s",
			binary, added, gone, filepath.Join("internal/deptest", depsFile))
	}
}

// TestArchitectureDocRules: docs/architecture.md carries the rules table
// rendered from the layers. UPDATE_DOCS=1 rewrites it.
func TestArchitectureDocRules(t *testing.T) {
	m := module(t)
	generated(t, filepath.Join(m.Dir, "docs", "architecture.md"), "TestArchitectureDoc", RulesTable())
}

// TestArchitectureDocNamesEveryPackage: the package table of
// docs/architecture.md names every package of the module, one row each,
// and no package that does not exist.
func TestArchitectureDocNamesEveryPackage(t *testing.T) {
	m := module(t)
	pkgs, err := m.Packages()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(m.Dir, "docs", "architecture.md"))
	require.NoError(t, err)
	_, owns, ok := strings.Cut(string(data), "\n## What each package owns\n")
	require.True(t, ok, "docs/architecture.md has no section \"What each package owns\"")
	owns, _, _ = strings.Cut(owns, "\n## ")
	named := map[string]int{}
	for _, row := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(owns, -1) {
		named[row[1]]++
	}
	for _, p := range pkgs {
		assert.Equal(t, 1, named[p.Path], "docs/architecture.md names package %s %d times in \"What each package owns\"; give it one row", p.Path, named[p.Path])
		delete(named, p.Path)
	}
	for p := range named {
		t.Errorf("docs/architecture.md names package %s, which does not exist", p)
	}
}

// TestArchitectureDocArrows: every arrow of the "Who calls whom" diagram
// in docs/architecture.md is an import the code makes (A --> B: package A
// imports package B), and every node names a package. A node is
// id["path what it does"] or a bare id that is the path.
func TestArchitectureDocArrows(t *testing.T) {
	m := module(t)
	pkgs, err := m.Packages()
	require.NoError(t, err)
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.Path] = p.Imports
	}
	data, err := os.ReadFile(filepath.Join(m.Dir, "docs", "architecture.md"))
	require.NoError(t, err)
	_, who, ok := strings.Cut(string(data), "\n## Who calls whom\n")
	require.True(t, ok, "docs/architecture.md has no section \"Who calls whom\"")
	_, diagram, ok := strings.Cut(who, "```mermaid\nflowchart TD\n")
	require.True(t, ok, "the section \"Who calls whom\" has no mermaid flowchart")
	diagram, _, _ = strings.Cut(diagram, "```")
	node := regexp.MustCompile(`^([A-Za-z]+)(?:\["([^" ]+)[^"]*"\])?$`)
	paths := map[string]string{}
	resolve := func(ref string) string {
		mm := node.FindStringSubmatch(strings.TrimSpace(ref))
		require.NotNil(t, mm, "diagram node %q is not id or id[\"path ...\"]", ref)
		if mm[2] != "" {
			paths[mm[1]] = mm[2]
		}
		if p, ok := paths[mm[1]]; ok {
			return p
		}
		return mm[1]
	}
	arrows := 0
	for _, line := range strings.Split(strings.TrimSpace(diagram), "\n") {
		from, to, ok := strings.Cut(line, " --> ")
		require.True(t, ok, "diagram line %q is not an arrow A --> B", line)
		a, b := resolve(from), resolve(to)
		_, known := imports[a]
		require.True(t, known, "diagram node %s names no package", a)
		_, known = imports[b]
		require.True(t, known, "diagram node %s names no package", b)
		assert.Contains(t, imports[a], b, "docs/architecture.md draws %s --> %s, but %s does not import %s", a, b, a, b)
		arrows++
	}
	assert.Greater(t, arrows, 10)
}

// TestReadmeMapOfTheHouse: README.md's map of the house is rendered from
// the rooms and folders. UPDATE_DOCS=1 rewrites it.
func TestReadmeMapOfTheHouse(t *testing.T) {
	m := module(t)
	dirs, err := m.TopLevelFolders()
	require.NoError(t, err)
	present := map[string]bool{}
	for _, d := range dirs {
		present[d] = true
	}
	generated(t, filepath.Join(m.Dir, "README.md"), "TestReadmeMap", HouseMap(present))
}

// generated checks that the file at path holds want between the markers
// of the test named run, rewriting it under UPDATE_DOCS=1.
func generated(t *testing.T, path, run, want string) {
	t.Helper()
	begin := "<!-- BEGIN GENERATED by `go test ./internal/deptest -run " + run + "`; do not edit -->"
	const end = "<!-- END GENERATED -->"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	i := strings.Index(doc, begin)
	j := -1
	if i >= 0 {
		j = strings.Index(doc[i:], end) + i
	}
	fix := "UPDATE_DOCS=1 go test ./internal/deptest -run " + run
	require.True(t, i >= 0 && j > i, "%s has no generated block; add the markers and run %s", path, fix)
	block := begin + "\n" + want + end
	if os.Getenv("UPDATE_DOCS") != "" {
		doc = doc[:i] + block + doc[j+len(end):]
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	}
	assert.Equal(t, block, doc[i:j+len(end)], "%s drifted from internal/deptest/rooms.go; run %s", path, fix)
}
