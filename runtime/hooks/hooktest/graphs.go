package hooktest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
)

// errUnbound is what a hook of a Compile'd graph returns when the engine
// calls it: these graphs give tests their structure, and a test calls the
// hook under test directly.
var errUnbound = errors.New("hooktest graphs bind no hook function; call the hook directly")

// Compile compiles a graph document for its structure: every hook name it
// calls resolves, to a function that fails. The real list is compiled by
// package hooks's tests; hook packages cannot import it without a cycle.
func Compile(t *testing.T, name string, src []byte) *runtime.Graph {
	t.Helper()
	var doc struct {
		Nodes []struct {
			Entry []yaml.Node `yaml:"entry"`
			Exit  []yaml.Node `yaml:"exit"`
		} `yaml:"nodes"`
	}
	require.NoError(t, yaml.Unmarshal(src, &doc))
	seen := map[string]bool{}
	var specs []runtime.HookSpec
	for _, n := range doc.Nodes {
		for _, item := range append(append([]yaml.Node{}, n.Entry...), n.Exit...) {
			hook := item.Value
			if item.Kind == yaml.MappingNode {
				var m struct {
					Hook string `yaml:"hook"`
				}
				require.NoError(t, item.Decode(&m))
				hook = m.Hook
			}
			if hook != "" && !seen[hook] {
				seen[hook] = true
				specs = append(specs, runtime.HookSpec{Name: hook, Func: func(*runtime.HookContext) (runtime.Result, error) { return runtime.Result{}, errUnbound }})
			}
		}
	}
	reg, err := runtime.NewRegistry(specs...)
	require.NoError(t, err)
	g, err := runtime.Compile(name, src, reg)
	require.NoError(t, err)
	return g
}

// CompileShipped compiles the shipped loop name for its structure (see
// Compile).
func CompileShipped(t *testing.T, name string) *runtime.Graph {
	t.Helper()
	src, err := graphs.Source(name)
	require.NoError(t, err)
	return Compile(t, name, src)
}
