package work

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// commandParam turns the command parameter into an argv and the text shown
// in messages.
func commandParam(v any) ([]string, string, error) {
	switch c := v.(type) {
	case nil:
		return nil, "", nil
	case string:
		argv, err := splitShellWords(c)
		if err != nil {
			return nil, "", fmt.Errorf("command: %w", err)
		}
		return argv, strings.TrimSpace(c), nil
	case []string:
		return c, joinArgv(c), nil
	case []any:
		argv := make([]string, len(c))
		for i, e := range c {
			s, ok := e.(string)
			if !ok {
				return nil, "", fmt.Errorf("command: list element %d must be a string, got %T", i, e)
			}
			argv[i] = s
		}
		return argv, joinArgv(argv), nil
	}
	return nil, "", fmt.Errorf("command must be a string or a list of strings, got %T", v)
}

// splitShellWords splits s into words the way a POSIX shell would, without
// expanding anything: whitespace separates words, single quotes keep text
// literally, double quotes keep text but honour \" \\ \$ and \`, and a
// backslash outside quotes escapes the next character. Operators such as
// | ; && > are ordinary characters (nothing is ever run through a shell).
func splitShellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(s[i])
			}
			if !closed {
				return nil, fmt.Errorf("unterminated double quote in %q", s)
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// joinArgv renders an argv for messages, quoting words that need it.
func joinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]#~") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// lastLines returns up to n trailing non-blank lines of s.
func lastLines(s string, n int) []string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// failureRE marks a line that reports a failure: a failing test, an
// error, a panic.
var failureRE = lazyre.New(`(?i)(\bfail(ed|ure|ures|ing)?\b|\berrors?\b|\bpanic\b|^--- FAIL|✗|✘)`)

// failingLines returns up to n lines of a failing command's output: the
// first lines that report a failure, in order (a linter's findings, a
// test's FAIL lines); when no line says so, the last n lines, where a
// failure is usually summed up.
func failingLines(s string, n int) []string {
	all := lastLines(s, 1<<30)
	var hits []string
	for _, l := range all {
		if failureRE().MatchString(l) {
			hits = append(hits, l)
			if len(hits) == n {
				break
			}
		}
	}
	if len(hits) > 0 {
		return hits
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}
