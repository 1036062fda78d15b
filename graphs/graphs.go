// Package graphs holds the shipped process graphs, embedded in the binary.
// A repository cannot supply or override a graph.
package graphs

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Default is the loop a work item walks unless its arming keyword chose another.
const Default = "pdlc-work-item-loop"

// Names lists the shipped loops, sorted.
func Names() []string {
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
}

// Source returns the YAML of a shipped loop.
func Source(name string) ([]byte, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no shipped loop named %q; shipped loops are: %s", name, strings.Join(Names(), ", "))
	}
	return data, nil
}
