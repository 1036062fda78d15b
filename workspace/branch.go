package workspace

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/the-loop/the-loop/runtime/plaintext"
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

// ValidateBranch applies git's rules for a branch name (those of
// `git check-ref-format --branch`): no empty or dot-leading component, no
// component ending in ".lock", no "..", "@{", "//" or a lone "@", no
// control characters, space, ~ ^ : ? * [ or \, not starting with '-' or
// ending with '/' or '.', and not HEAD. Beyond git, it refuses invisible
// and bidirectional characters, which make a name read as another.
func ValidateBranch(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("branch name %q is not valid for git: %s", name, why)
	}
	switch {
	case name == "":
		return bad("it is empty")
	case name == "HEAD":
		return bad("HEAD is reserved")
	case name == "@":
		return bad("a lone @ is reserved")
	case strings.HasPrefix(name, "-"):
		return bad("it starts with '-'")
	case strings.HasSuffix(name, "/"), strings.HasPrefix(name, "/"):
		return bad("it starts or ends with '/'")
	case strings.HasSuffix(name, "."):
		return bad("it ends with '.'")
	case strings.Contains(name, ".."):
		return bad(`it contains ".."`)
	case strings.Contains(name, "@{"):
		return bad(`it contains "@{"`)
	case strings.Contains(name, "//"):
		return bad(`it contains "//"`)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return bad(fmt.Sprintf("it contains %q", r))
		}
	}
	if r, unsafe := plaintext.Unsafe(name); unsafe {
		return bad(fmt.Sprintf("it contains the character %U, an invisible or bidirectional character", r))
	}
	for _, c := range strings.Split(name, "/") {
		if strings.HasPrefix(c, ".") {
			return bad(fmt.Sprintf("component %q starts with '.'", c))
		}
		if strings.HasSuffix(c, ".lock") {
			return bad(fmt.Sprintf("component %q ends with .lock", c))
		}
	}
	return nil
}
