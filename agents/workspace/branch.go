package workspace

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/the-loop/the-loop/internal/gitref"
	"github.com/the-loop/the-loop/internal/itemid"
)

// BranchPrefix starts every branch the loop names itself.
const BranchPrefix = "the-loop/"

// maxSlug bounds the title part of a branch name.
const maxSlug = 40

// ValidateID checks a work item id used as a directory and branch part:
// the one id rule (internal/itemid), which keeps both safe.
func ValidateID(id string) error { return itemid.Check(id) }

// Slug turns a title into a short branch-safe slug: lower-case letters and
// digits joined by single hyphens, at most 40 characters.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= maxSlug {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// BranchFor names an item's branch: the-loop/<id>-<slug of title>, or
// the-loop/<id> when the title has no usable characters.
func BranchFor(id, title string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	name := BranchPrefix + id
	if s := Slug(title); s != "" {
		name += "-" + s
	}
	return name, ValidateBranch(name)
}

// ValidateBranch applies git's rule for a branch name (gitref.CheckBranch):
// that of `git check-ref-format --branch`, plus no invisible or
// bidirectional character.
func ValidateBranch(name string) error {
	if err := gitref.CheckBranch(name); err != nil {
		return fmt.Errorf("branch name %q is not valid for git: it %v", name, err)
	}
	return nil
}
