package deptest

import (
	"fmt"
	"strings"
)

// RulesTable renders the layers as docs/architecture.md shows them: one row
// per room, top layer first, with what it may import, then the rules for
// test-support packages and the exceptions.
func RulesTable() string {
	var b strings.Builder
	b.WriteString("| layer | room | holds | may import |\n| --- | --- | --- | --- |\n")
	for i := len(Layers) - 1; i >= 0; i-- {
		for _, r := range Layers[i] {
			holds := r.Holds
			if r.Planned != "" {
				holds += " (planned: " + r.Planned + ")"
			}
			fmt.Fprintf(&b, "| %d | `%s/` | %s | %s |\n", i, r.Path, holds, mayImportCell(i))
		}
	}
	b.WriteString("\nRooms of one layer do not import each other. A test-support package (the last element of its path\n" +
		"ends in `test` or starts with `test` or `fake`) lives in the room of what it fakes and is imported only by\n" +
		"tests, other test-support packages and " + codeList(MayImportTestSupport) + ". Tests (`_test.go` files) may import anything.\n")
	if len(Exceptions) == 0 {
		b.WriteString("There are no exceptions.\n")
		return b.String()
	}
	b.WriteString("The exceptions:\n\n")
	for _, e := range Exceptions {
		fmt.Fprintf(&b, "- `%s` imports `%s`: %s\n", e.From, e.To, e.Why)
	}
	return b.String()
}

// HouseMap renders README.md's map of the house: one line per top-level
// folder that exists (present), rooms from the top layer down, then the
// folders without Go.
func HouseMap(present map[string]bool) string {
	var b strings.Builder
	line := func(r Room) {
		if present[r.Path] {
			fmt.Fprintf(&b, "- `%s/` — %s\n", r.Path, r.Holds)
		}
	}
	for i := len(Layers) - 1; i >= 0; i-- {
		for _, r := range Layers[i] {
			line(r)
		}
	}
	for _, r := range Folders {
		line(r)
	}
	return b.String()
}

func mayImportCell(layer int) string {
	if layer == 0 {
		return "nothing of the module outside its own room"
	}
	return codeList(below(layer))
}

func codeList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return strings.Join(out, ", ")
}
