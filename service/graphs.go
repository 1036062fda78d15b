package service

import (
	"fmt"
	"sync"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks"
)

var (
	graphMu    sync.Mutex
	graphCache = map[string]*runtime.Graph{}
)

// Loops lists the shipped loop names.
func Loops() []string { return graphs.Names() }

// Graph returns the compiled shipped loop name ("" = the default loop).
func Graph(name string) (*runtime.Graph, error) {
	if name == "" {
		name = graphs.Default
	}
	graphMu.Lock()
	defer graphMu.Unlock()
	if g, ok := graphCache[name]; ok {
		return g, nil
	}
	src, err := graphs.Source(name)
	if err != nil {
		return nil, invalid(err)
	}
	reg, err := hooks.Registry()
	if err != nil {
		return nil, fmt.Errorf("the shipped hook list is invalid (a packaging fault): %w", err)
	}
	g, err := runtime.Compile(name, src, reg)
	if err != nil {
		return nil, fmt.Errorf("the shipped graph %s does not compile (a packaging fault): %w", name, err)
	}
	graphCache[name] = g
	return g, nil
}

// CompileAll compiles every shipped loop: the start-up check.
func CompileAll() error {
	for _, n := range Loops() {
		if _, err := Graph(n); err != nil {
			return err
		}
	}
	return nil
}

// loopFor returns the loop recorded with a state, falling back to the
// default (with a warning) for an unknown name.
func loopFor(st *runtime.State) (*runtime.Graph, string, error) {
	name := st.Loop
	warn := ""
	if name != "" && !graphs.Shipped(name) {
		warn = fmt.Sprintf("%s: recorded loop %q is not shipped; using %s", st.WorkItem, name, graphs.Default)
		name = ""
	}
	g, err := Graph(name)
	return g, warn, err
}
