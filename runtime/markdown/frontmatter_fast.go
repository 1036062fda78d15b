package markdown

import (
	"strconv"
	"strings"
)

// parseSimpleYAML parses the common shape of front matter — one
// `key: value` per line, with plain scalars, integers, booleans, nulls,
// flow lists of such scalars, comments and blank lines — without the YAML
// library. It returns ok=false for anything else, and the caller then uses
// the full parser, so the result is always what yaml.v3 would produce.
func parseSimpleYAML(raw string) (map[string]any, bool) {
	out := map[string]any{}
	for len(raw) > 0 {
		line := raw
		if i := strings.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = ""
		}
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if trimmed != line || strings.ContainsRune(line, '\t') {
			return nil, false // indentation: a nested block
		}
		colon := strings.Index(line, ": ")
		if colon < 0 {
			if strings.HasSuffix(line, ":") {
				colon = len(line) - 1
			} else {
				return nil, false
			}
		}
		key := line[:colon]
		if !simpleKey(key) {
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		val := stripComment(strings.TrimSpace(line[colon+1:]))
		v, ok := simpleValue(val)
		if !ok {
			return nil, false
		}
		out[key] = v
	}
	return out, true
}

func simpleKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// stripComment drops a trailing " #…" comment outside quotes and brackets.
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
			if !inQuote && i > 0 && (v[i-1] == ' ' || v[i-1] == '\t') {
				return strings.TrimRight(v[:i], " \t")
			}
		}
	}
	return v
}

func simpleValue(v string) (any, bool) {
	if v == "" {
		return nil, true
	}
	if v == "{}" {
		return map[string]any{}, true
	}
	if v[0] == '[' {
		return flowList(v)
	}
	if v[0] == '"' {
		s, rest, ok := quoted(v)
		if !ok || rest != "" {
			return nil, false
		}
		return s, true
	}
	return simpleScalar(v, false)
}

// flowList parses "[a, "b, c", d]".
func flowList(v string) (any, bool) {
	if !strings.HasSuffix(v, "]") {
		return nil, false
	}
	rest := strings.TrimSpace(v[1 : len(v)-1])
	list := []any{}
	for rest != "" {
		var item any
		if rest[0] == '"' {
			s, after, ok := quoted(rest)
			if !ok {
				return nil, false
			}
			item, rest = s, strings.TrimSpace(after)
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			s, ok := simpleScalar(strings.TrimSpace(rest[:end]), true)
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
		rest = strings.TrimSpace(rest[1:])
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

// simpleScalar resolves a plain or simply double-quoted scalar.
func simpleScalar(v string, inFlow bool) (any, bool) {
	if v == "" {
		return nil, false
	}
	if strings.ContainsAny(v[:1], "'{[]}&*!|>%@`,?:-#") || strings.Contains(v, ": ") || strings.Contains(v, " #") {
		return nil, false
	}
	if inFlow && strings.ContainsAny(v, "[]{}") {
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
	if c := v[0]; c >= '0' && c <= '9' || c == '+' || c == '.' {
		if n, err := strconv.Atoi(v); err == nil && c != '+' && (len(v) == 1 || v[0] != '0') {
			return n, true
		}
		return nil, false // floats, dates, octal, ...: leave them to the full parser
	}
	for _, w := range []string{".inf", ".nan", "yes", "no", "on", "off", "y", "n"} {
		if strings.EqualFold(v, w) {
			return nil, false
		}
	}
	return v, true
}
