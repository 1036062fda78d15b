package deptest

import (
	"fmt"
	"slices"
	"strings"
)

// Package is what the rules read of one package of the module.
type Package struct {
	// Path is the import path relative to the module ("." for the root).
	Path string
	// Imports are the module's own packages it imports, relative, from its
	// non-test files only.
	Imports []string
}

// Violation is one import, or one package, the rules refuse.
type Violation struct {
	From, To string
	Why      string
}

func (v Violation) String() string {
	if v.To == "" {
		return v.From + " " + v.Why
	}
	return v.From + " imports " + v.To + ": " + v.Why
}

// RoomOf returns the room a package path (relative to the module) lives
// in and the room's layer; ok is false when its folder is no room.
func RoomOf(path string) (room Room, layer int, ok bool) {
	top, _, _ := strings.Cut(path, "/")
	for i, rooms := range Layers {
		for _, r := range rooms {
			if r.Path == top {
				return r, i, true
			}
		}
	}
	return Room{}, -1, false
}

// IsTestSupport reports whether a package exists for tests: the last
// element of its path ends in "test" (runtimetest, providertest) or starts
// with "test" (testbin) or "fake" (fakeharness, fakegithub).
func IsTestSupport(path string) bool {
	last := path[strings.LastIndex(path, "/")+1:]
	return strings.HasSuffix(last, "test") || strings.HasPrefix(last, "test") || strings.HasPrefix(last, "fake")
}

// Check returns every package in no room and every import the rules
// refuse, in the order of pkgs.
func Check(pkgs []Package) []Violation {
	var out []Violation
	for _, p := range pkgs {
		from, fromLayer, ok := RoomOf(p.Path)
		if !ok {
			out = append(out, Violation{From: p.Path, Why: "is in no room: give its top-level folder a place in the layers of internal/deptest/rooms.go"})
			continue
		}
		for _, imp := range p.Imports {
			if why := refused(p.Path, from, fromLayer, imp); why != "" {
				out = append(out, Violation{From: p.Path, To: imp, Why: why})
			}
		}
	}
	return out
}

// refused says why from (in room, at layer) may not import imp ("" when it
// may).
func refused(from string, room Room, layer int, imp string) string {
	for _, e := range Exceptions {
		if e.From == from && e.To == imp {
			return ""
		}
	}
	to, toLayer, ok := RoomOf(imp)
	switch {
	case !ok:
		return "" // reported as a package in no room
	case IsTestSupport(imp) && !IsTestSupport(from) && !slices.Contains(MayImportTestSupport, room.Path):
		return "it exists for tests; only tests, other test-support packages and " + strings.Join(MayImportTestSupport, ", ") + " may import it"
	case to.Path == room.Path || toLayer < layer:
		return ""
	case toLayer == layer:
		return fmt.Sprintf("%s and %s are rooms of one layer, and neither imports the other", room.Path, to.Path)
	}
	return fmt.Sprintf("the import climbs: %s may import %s; move the code down, hand %s what it needs from above, or, if it must stay, add an Exception with its reason to internal/deptest/rooms.go",
		room.Path, mayImport(layer), room.Path)
}

// below lists the rooms of the layers under layer, nearest first.
func below(layer int) []string {
	var names []string
	for i := layer - 1; i >= 0; i-- {
		for _, r := range Layers[i] {
			names = append(names, r.Path)
		}
	}
	return names
}

// mayImport says what a package at layer may import, for messages.
func mayImport(layer int) string {
	if layer == 0 {
		return "nothing of the module outside its own room"
	}
	return "its own room and " + strings.Join(below(layer), ", ")
}
