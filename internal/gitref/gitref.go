// Package gitref holds git's rule for a branch name, the one the loop
// applies wherever a branch name arrives: a handoff record, a work item's
// working tree, a GitHub call.
package gitref

import (
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// CheckBranch applies `git check-ref-format --branch` to name: no empty or
// dot-leading component, no component ending in ".lock", no "..", "@{",
// "//" or a lone "@", no control character, space, ~ ^ : ? * [ or \, not
// starting with '-' or '/', not ending with '/' or '.', and not HEAD.
// Beyond git it refuses invisible and bidirectional characters, which make
// a name read as another. The error is the first rule broken, worded to
// follow the name ("starts with '-'").
func CheckBranch(name string) error {
	if reason := breaks(name); reason != "" {
		return errors.New(reason)
	}
	return nil
}

func breaks(name string) string {
	switch {
	case name == "":
		return "is empty"
	case name == "HEAD":
		return "is HEAD, which git reserves"
	case name == "@":
		return "is the single character '@'"
	case strings.HasPrefix(name, "-"):
		return "starts with '-'"
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//"):
		return "has a leading, trailing or doubled '/'"
	case strings.HasSuffix(name, "."):
		return "ends with '.'"
	case strings.Contains(name, ".."):
		return "contains '..'"
	case strings.Contains(name, "@{"):
		return "contains '@{'"
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return "contains a control character"
		case strings.ContainsRune(" ~^:?*[\\", r):
			return fmt.Sprintf("contains %q", r)
		}
	}
	if r, bad := plaintext.Unsafe(name); bad {
		return fmt.Sprintf("contains %U, an invisible, bidirectional or unprintable character (an invisible or bidirectional character makes a name read as another)", r)
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") {
			return fmt.Sprintf("has a component %q starting with '.'", comp)
		}
		if strings.HasSuffix(comp, ".lock") {
			return fmt.Sprintf("has a component %q ending with '.lock'", comp)
		}
	}
	return ""
}
