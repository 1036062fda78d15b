package markdown

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseSimpleYAML reads the common shape of front matter — one
// `key: value` per line, with plain scalars, integers, booleans, nulls,
// flow lists of such scalars, double-quoted strings, comments and blank
// lines — without the YAML library. It answers only where its reading is
// known to equal yaml.v3's (FuzzFrontMatterFastPathMatchesYAML checks that
// in CI) and returns ok=false for everything else, which the caller then
// hands to yaml.v3: a tab, a control character, a line break other than
// "\n" or "\r\n", a key that is not a plain identifier or that YAML reads
// as something else (null, true, 00, ...), a value that ends in ':' or
// that YAML could read as a number, date, float or anchor, indentation,
// and any escape but \" and \\.
func parseSimpleYAML(raw string) (map[string]any, bool) {
	if !plainText(raw) {
		return nil, false
	}
	out := map[string]any{}
	for len(raw) > 0 {
		line := raw
		if i := strings.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
			line = strings.TrimSuffix(line, "\r")
		} else {
			raw = ""
		}
		if strings.IndexByte(line, '\r') >= 0 {
			return nil, false // a lone CR is a line break to YAML
		}
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if trimmed != line {
			return nil, false // indentation: a nested block or a continuation
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 || (colon+1 < len(line) && line[colon+1] != ' ') {
			return nil, false
		}
		key := line[:colon]
		if !simpleKey(key) {
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		v, ok := simpleValue(stripComment(strings.Trim(line[colon+1:], " ")))
		if !ok {
			return nil, false
		}
		out[key] = v
	}
	return out, true
}

// plainText reports text whose every character YAML reads as itself: valid
// UTF-8 made of printable ASCII, "\n", "\r" (checked per line), and
// printable non-ASCII characters other than YAML's own line breaks and the
// byte-order mark.
func plainText(s string) bool {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
		case r >= 0x20 && r <= 0x7E:
		case r == utf8.RuneError:
			return false // invalid UTF-8 (a literal U+FFFD is refused too)
		case r == 0x2028 || r == 0x2029 || r == 0xFEFF:
			return false
		case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false // tabs, control characters, NEL, C1
		}
	}
	return true
}

// yamlWords are plain scalars YAML resolves to something other than a
// string, or that some YAML readers do; a key or value spelled like one is
// left to yaml.v3.
func yamlWord(s string) bool {
	// Only ASCII letters lower into these words (strings.ToLower maps no
	// other rune to one of their letters), so no word is longer than five
	// bytes in any case.
	if len(s) > 5 {
		return false
	}
	for _, w := range [...]string{"null", "true", "false", "yes", "no", "on", "off", "y", "n"} {
		if EqualFoldASCII(s, w) {
			return true
		}
	}
	return false
}

// simpleKey is an identifier key YAML reads as that very string.
func simpleKey(k string) bool {
	if k == "" || len(k) > 128 || yamlWord(k) {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !(letter || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// stripComment drops a "#…" comment (at the start, or after a space)
// outside double quotes, and the spaces before it.
func stripComment(v string) string {
	inQuote := false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			if inQuote {
				i++
			}
		case '"':
			inQuote = !inQuote
		case '#':
			if !inQuote && (i == 0 || v[i-1] == ' ') {
				return strings.TrimRight(v[:i], " ")
			}
		}
	}
	return v
}

func simpleValue(v string) (any, bool) {
	switch {
	case v == "":
		return nil, true
	case v == "{}":
		return map[string]any{}, true
	case v[0] == '[':
		return flowList(v)
	case v[0] == '"':
		s, rest, ok := quoted(v)
		if !ok || rest != "" {
			return nil, false
		}
		return s, true
	}
	return plainScalar(v, false)
}

// flowList parses `[a, "b, c", d]`: plain or double-quoted scalars, no
// nesting, no empty item.
func flowList(v string) (any, bool) {
	if !strings.HasSuffix(v, "]") {
		return nil, false
	}
	rest := strings.Trim(v[1:len(v)-1], " ")
	list := []any{}
	for rest != "" {
		var item any
		if rest[0] == '"' {
			s, after, ok := quoted(rest)
			if !ok {
				return nil, false
			}
			item, rest = s, strings.TrimLeft(after, " ")
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			s, ok := plainScalar(strings.Trim(rest[:end], " "), true)
			if !ok {
				return nil, false
			}
			item, rest = s, rest[end:]
		}
		list = append(list, item)
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return nil, false
		}
		rest = strings.TrimLeft(rest[1:], " ")
		if rest == "" {
			return nil, false // a trailing comma: leave it to the full parser
		}
	}
	return list, true
}

// quoted reads a double-quoted scalar with only \" and \\ escapes.
func quoted(v string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; c {
		case '"':
			return b.String(), v[i+1:], true
		case '\\':
			if i+1 >= len(v) || (v[i+1] != '"' && v[i+1] != '\\') {
				return "", "", false
			}
			i++
			b.WriteByte(v[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// flowBreaks are the characters that end or change a plain scalar inside
// a flow collection, where a fast-path item may not contain them: YAML's
// flow indicators (",[]{}"), '?' (yaml.v3's scanner ends a flow scalar
// there, as libyaml does), ':' and '#' (a key or a comment after a space),
// and the quotes.
const flowBreaks = `,?[]{}:#"'`

// plainScalar resolves a plain scalar the way yaml.v3 does, for the plain
// scalars whose resolution is certain: null, the six boolean spellings, a
// decimal int without sign or leading zero, and a string that starts with
// a letter, '_' or '/'.
func plainScalar(v string, inFlow bool) (any, bool) {
	if v == "" || strings.HasSuffix(v, ":") || strings.Contains(v, ": ") || strings.Contains(v, " #") {
		return nil, false
	}
	if inFlow && strings.ContainsAny(v, flowBreaks) {
		return nil, false
	}
	switch v {
	case "null", "Null", "NULL", "~":
		return nil, true
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	first, _ := utf8.DecodeRuneInString(v)
	switch {
	case first >= '0' && first <= '9':
		n, err := strconv.Atoi(v)
		if err != nil || (len(v) > 1 && v[0] == '0') {
			return nil, false // floats, dates, octal, hex, 1_000: the full parser
		}
		return n, true
	case first == '_' || first == '/' || first < utf8.RuneSelf && unicode.IsLetter(first):
	case first >= 0xA0 && unicode.IsLetter(first):
	default:
		return nil, false
	}
	if yamlWord(v) {
		return nil, false
	}
	return v, true
}
