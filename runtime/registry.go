package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// HookSpec declares one hook: the name graphs call it by, the kind of work
// it does, a one-line summary for the documentation, its function, and every
// integration operation it may call. The runtime hands a hook a tracker that
// performs only the operations its spec declares, and the start-up check
// asks the configured provider for exactly those.
type HookSpec struct {
	Name    string
	Kind    string
	Summary string
	Func    HookFunc
	Ops     []integrations.Op
	// RunsCommands marks a hook that runs the repository's own commands:
	// its call is bounded by their budget (RepoCommands.Budget) when that
	// is longer than the chain's hook timeout.
	RunsCommands bool
	// HostOps are the operations the hook may call on the code host
	// (GitHub) for the item's pull requests, which a Jira item's tracker
	// does not serve.
	HostOps []integrations.Op
}

// Registry resolves hook names for the graph compiler. It is built once,
// from a list of specs, and never changes.
type Registry struct {
	specs map[string]HookSpec
	names []string
}

// NewRegistry builds a registry from specs. An empty or duplicate name, a
// name with the x- prefix (reserved for repository hooks) and a spec without
// a function are errors naming the spec.
func NewRegistry(specs ...HookSpec) (*Registry, error) {
	r := &Registry{specs: make(map[string]HookSpec, len(specs))}
	for _, s := range specs {
		switch {
		case strings.TrimSpace(s.Name) == "":
			return nil, fmt.Errorf("a hook must have a non-empty name")
		case strings.HasPrefix(s.Name, "x-"):
			return nil, fmt.Errorf("hook name %q is reserved: the x- prefix belongs to repository hooks", s.Name)
		case s.Func == nil:
			return nil, fmt.Errorf("hook %q has no function", s.Name)
		}
		if _, dup := r.specs[s.Name]; dup {
			return nil, fmt.Errorf("duplicate hook name: %q", s.Name)
		}
		s.Ops, s.HostOps = slices.Clone(s.Ops), slices.Clone(s.HostOps)
		r.specs[s.Name] = s
		r.names = append(r.names, s.Name)
	}
	slices.Sort(r.names)
	return r, nil
}

// Lookup returns the spec registered under name.
func (r *Registry) Lookup(name string) (HookSpec, bool) {
	s, ok := r.specs[name]
	return s, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string { return slices.Clone(r.names) }
