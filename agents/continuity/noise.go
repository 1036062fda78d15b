package continuity

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
)

// maxToken is the longest whitespace-free run kept in a brief (URLs may run
// to maxURL); longer runs are hashes, base64 or minified dumps.
const (
	maxToken = 64
	maxURL   = 200
	maxItem  = 480
	elided   = "[…]"
)

// noiseTags open blocks of harness or tool output that never belong in a
// brief.
var noiseTags = []string{"system-reminder", "function_results", "tool_result", "tool_use", "command-output", "stdout", "stderr"}

var (
	jsonPunctRE = regexp.MustCompile(`^[\[\]{}]+,?$`)
	jsonKeyRE   = regexp.MustCompile(`^"[^"]+"\s*:\s*`)
)

// noiseFilter keeps the substantive lines of free text: it drops harness
// reminders, fenced tool output, shell-prompt command lines, JSON and other
// punctuation walls, and repeated lines, and elides long token runs.
type noiseFilter struct{ seen map[string]bool }

func newNoiseFilter() *noiseFilter { return &noiseFilter{seen: map[string]bool{}} }

// lines returns the kept lines of text, in order.
func (f *noiseFilter) lines(text string) []string {
	var out []string
	inFence, inTag, depth := false, "", 0
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if inTag != "" {
			if strings.Contains(t, "</"+inTag+">") {
				inTag = ""
			}
			continue
		}
		if tag := openingTag(t); tag != "" {
			if !strings.Contains(t, "</"+tag+">") {
				inTag = tag
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" {
			continue
		}
		if depth > 0 || isJSONish(t) {
			depth = max(0, depth+nesting(t))
			continue
		}
		if strings.HasPrefix(t, "$ ") || isWall(t) {
			continue
		}
		if t = elideTokens(redactSecrets(t)); t == "" {
			continue
		}
		key := strings.ToLower(t)
		if f.seen[key] {
			continue
		}
		f.seen[key] = true
		out = append(out, t)
	}
	return out
}

// item folds the kept lines of text into one line capped at maxItem bytes;
// "" means nothing substantive remained.
func (f *noiseFilter) item(text string) string {
	return capItem(strings.Join(f.lines(text), " "))
}

func capItem(s string) string {
	if len(s) <= maxItem {
		return s
	}
	return cutUTF8(s, maxItem-len(" …")) + " …"
}

func openingTag(t string) string {
	for _, tag := range noiseTags {
		if strings.Contains(t, "<"+tag+">") || strings.Contains(t, "<"+tag+" ") {
			return tag
		}
	}
	return ""
}

func isJSONish(t string) bool {
	if jsonPunctRE.MatchString(t) || jsonKeyRE.MatchString(t) || strings.HasPrefix(t, `{"`) || strings.HasPrefix(t, `[{`) {
		return true
	}
	return (t[0] == '{' || t[0] == '[') && len(t) > 2 && json.Valid([]byte(t))
}

// isWall reports a long line that is mostly ASCII punctuation: table
// rules, progress bars, minified dumps.
func isWall(t string) bool {
	if len(t) < 20 {
		return false
	}
	punct, total := 0, 0
	for _, r := range t {
		if unicode.IsSpace(r) {
			continue
		}
		total++
		if r < unicode.MaxASCII && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			punct++
		}
	}
	return punct*10 > total*6
}

func elideTokens(t string) string {
	fields := strings.Fields(t)
	kept := 0
	for i, w := range fields {
		limit := maxToken
		if strings.Contains(w, "://") {
			limit = maxURL
		}
		if len(w) > limit {
			fields[i] = elided
			continue
		}
		kept++
	}
	if kept == 0 {
		return ""
	}
	return strings.Join(fields, " ")
}

// nesting is the change in JSON bracket depth over one line.
func nesting(t string) int {
	n := 0
	for _, r := range t {
		switch r {
		case '{', '[':
			n++
		case '}', ']':
			n--
		}
	}
	return n
}
