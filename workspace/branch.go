package workspace

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/the-loop/the-loop/internal/gitref"
)

// BranchPrefix starts every branch the loop names itself.
const BranchPrefix = "the-loop/"

// maxSlug bounds the title part of a branch name.
const maxSlug = 40

var itemID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidateID checks a work item id used as a directory and branch part:
// letters, digits, '.', '_' and '-', starting with a letter or digit, at
// most 128 characters, and not ending in ".lock".
func ValidateID(id string) error {
	if !itemID.MatchString(id) || strings.HasSuffix(id, ".lock") || strings.Contains(id, "..") {
		return fmt.Errorf("work item id %q: use letters, digits, '.', '_' and '-' only, starting with a letter or digit (e.g. issue-12)", id)
	}
	return nil
}

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
