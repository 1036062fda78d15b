package markdown

import "strings"

// Fence returns a backtick fence longer than any run of backticks in s, so
// s can be quoted in a fenced block it cannot close.
func Fence(s string) string {
	longest, cur := 0, 0
	for _, r := range s {
		if r == '`' {
			cur++
			longest = max(longest, cur)
		} else {
			cur = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
