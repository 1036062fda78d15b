package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
)

// costly is the most a package-level regexp.MustCompile may allocate to
// compile its expression (8 KiB); above it, the expression is declared with
// New.
const costly = 8 << 10

// TestNoCostlyExpressionCompilesAtStartUp compiles every package-level
// regexp.MustCompile of the module's programs (test files aside) and
// refuses those that allocate more than costly bytes: every process would
// pay for them at start-up.
func TestNoCostlyExpressionCompilesAtStartUp(t *testing.T) {
	root, err := testbin.ModuleRoot()
	require.NoError(t, err)
	files, err := testbin.SourceFiles(root)
	require.NoError(t, err)
	seen := 0
	for _, p := range files {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				ast.Inspect(g, func(n ast.Node) bool {
					pattern, ok := mustCompileOf(n)
					if !ok {
						return true
					}
					seen++
					if b := compileBytes(pattern); b > costly {
						rel, _ := filepath.Rel(root, fset.Position(n.Pos()).Filename)
						t.Errorf("%s:%d: compiling %q allocates %d KiB at every start of the program; declare it with lazyre.New",
							rel, fset.Position(n.Pos()).Line, pattern, b>>10)
					}
					return true
				})
			}
		}
	}
	assert.Greater(t, seen, 50, "the module declares many package-level expressions; the walk found too few")
}

// mustCompileOf returns the pattern of a regexp.MustCompile call on a
// string literal.
func mustCompileOf(n ast.Node) (string, bool) {
	c, ok := n.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return "", false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "MustCompile" {
		return "", false
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "regexp" {
		return "", false
	}
	lit, ok := c.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// compileBytes is the fewest bytes one compilation of pattern allocated
// over a few tries.
func compileBytes(pattern string) uint64 {
	least := ^uint64(0)
	var before, after runtime.MemStats
	for range 5 {
		runtime.ReadMemStats(&before)
		regexp.MustCompile(pattern)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

func TestTheCostlyExampleIsCostly(t *testing.T) {
	assert.Greater(t, compileBytes(`^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$`), uint64(costly), "a counted repetition is what the rule is for")
	assert.Less(t, compileBytes(`^[a-z]+$`), uint64(costly))
}
