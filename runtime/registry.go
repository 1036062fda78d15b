package runtime

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Registry maps hook names to functions.
type Registry struct {
	mu    sync.RWMutex
	hooks map[string]HookFunc
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{hooks: map[string]HookFunc{}} }

// Register adds a hook; an empty or duplicate name is an error, and the x-
// prefix is reserved for repository hooks.
func (r *Registry) Register(name string, fn HookFunc) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("a hook must have a non-empty name")
	}
	if strings.HasPrefix(name, "x-") {
		return fmt.Errorf("hook name %q is reserved: the x- prefix belongs to repository hooks", name)
	}
	if fn == nil {
		return fmt.Errorf("hook %q has no function", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.hooks[name]; dup {
		return fmt.Errorf("duplicate hook name: %q", name)
	}
	r.hooks[name] = fn
	return nil
}

// Lookup returns the hook registered under name.
func (r *Registry) Lookup(name string) (HookFunc, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	fn, ok := r.hooks[name]
	return fn, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.hooks))
	for n := range r.hooks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var defaultRegistry = NewRegistry()

// Default returns the process-wide registry the shipped hooks register into.
func Default() *Registry { return defaultRegistry }

// Register adds a hook to the process-wide registry. A duplicate or invalid
// name is a start-up failure: it panics, during package initialisation.
func Register(name string, fn HookFunc) {
	if err := defaultRegistry.Register(name, fn); err != nil {
		panic("the-loop: " + err.Error())
	}
}
