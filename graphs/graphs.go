// Package graphs holds the shipped process graphs, embedded in the binary.
// A repository cannot supply or override a graph.
package graphs

import (
	"embed"
	"fmt"
	"github.com/the-loop/the-loop/internal/nearest"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed *.yaml
var files embed.FS

// Default is the loop a work item walks unless its arming keyword chose another.
const Default = "pdlc-work-item-loop"

// Names lists the shipped loops, sorted (a fresh slice each call).
func Names() []string { return slices.Clone(names()) }

// names lists the shipped loops once: they are embedded, so they never
// change while the program runs.
var names = sync.OnceValue(func() []string {
	entries, err := fs.Glob(files, "*.yaml")
	if err != nil {
		panic(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e, ".yaml"))
	}
	sort.Strings(names)
	return names
})

// Shipped reports whether name is a shipped loop.
func Shipped(name string) bool {
	_, found := slices.BinarySearch(names(), name)
	return found
}

// Source returns the YAML of a shipped loop.
func Source(name string) ([]byte, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		hint := ""
		if p := nearest.Phrase(nearest.Close(name, Names())); p != "" {
			hint = p + " "
		}
		return nil, fmt.Errorf("no shipped loop named %q; %sshipped loops are: %s", name, hint, strings.Join(Names(), ", "))
	}
	return data, nil
}
