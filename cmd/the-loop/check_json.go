package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/the-loop/the-loop/runtime"
)

// encodeReport renders one report: the whole document, or (inArray) an
// element of the --all array indented by two spaces, without its newline.
func encodeReport(rep runtime.Report, inArray bool) ([]byte, error) {
	if !inArray {
		b, err := appendReport(make([]byte, 0, 2048), rep, "")
		return append(b, '\n'), err
	}
	return appendReport(append(make([]byte, 0, 2048), "  "...), rep, "  ")
}

// appendReport writes rep as indented JSON in one pass: byte for byte what
// encoding/json's Encoder writes with SetIndent(prefix, "  ") and
// SetEscapeHTML(false), without the newline it ends with
// (TestReportJSONIsTheEncodersBytes), with no indenting pass afterwards.
func appendReport(b []byte, rep runtime.Report, prefix string) ([]byte, error) {
	in1, in2, in3 := prefix+"  ", prefix+"    ", prefix+"      "
	b = append(b, "{\n"...)
	b = appendField(b, in1, "workItem")
	b = appendJSONString(b, rep.WorkItem)
	b = append(b, ",\n"...)
	b = appendField(b, in1, "currentNode")
	b = appendJSONString(b, rep.CurrentNode)
	b = append(b, ",\n"...)
	b = appendField(b, in1, "ok")
	b = strconv.AppendBool(b, rep.OK)
	b = append(b, ",\n"...)
	b = appendField(b, in1, "parked")
	b, err := appendValue(b, rep.Parked, in1)
	if err != nil {
		return nil, fmt.Errorf("encode report %s: %w", rep.WorkItem, err)
	}
	b = append(b, ",\n"...)
	b = appendField(b, in1, "nodes")
	switch {
	case rep.Nodes == nil:
		b = append(b, "null"...)
	case len(rep.Nodes) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, "[\n"...)
		for i, n := range rep.Nodes {
			if i > 0 {
				b = append(b, ",\n"...)
			}
			b = append(b, in2...)
			b = append(b, "{\n"...)
			b = appendField(b, in3, "node")
			b = appendJSONString(b, n.Node)
			b = append(b, ",\n"...)
			b = appendField(b, in3, "status")
			b = appendJSONString(b, n.Status)
			b = append(b, ",\n"...)
			b = appendField(b, in3, "outcome")
			b = appendJSONString(b, n.Outcome)
			b = append(b, ",\n"...)
			b = appendField(b, in3, "messages")
			b = appendStrings(b, n.Messages, in3)
			b = append(b, ",\n"...)
			b = appendField(b, in3, "forced")
			b = strconv.AppendBool(b, n.Forced)
			b = append(b, ",\n"...)
			b = appendField(b, in3, "attempts")
			b = strconv.AppendInt(b, int64(n.Attempts), 10)
			b = append(b, '\n')
			b = append(b, in2...)
			b = append(b, '}')
		}
		b = append(b, '\n')
		b = append(b, in1...)
		b = append(b, ']')
	}
	if rep.RepoResolved != nil {
		b = append(b, ",\n"...)
		b = appendField(b, in1, "repoResolved")
		b = strconv.AppendBool(b, *rep.RepoResolved)
	}
	if len(rep.Drift) > 0 {
		b = append(b, ",\n"...)
		b = appendField(b, in1, "drift")
		b = appendStrings(b, rep.Drift, in1)
	}
	if rep.Dependencies != nil {
		b = append(b, ",\n"...)
		b = appendField(b, in1, "dependencies")
		if b, err = appendValue(b, rep.Dependencies, in1); err != nil {
			return nil, fmt.Errorf("encode report %s: %w", rep.WorkItem, err)
		}
	}
	b = append(b, '\n')
	b = append(b, prefix...)
	return append(b, '}'), nil
}

// appendField writes `<indent>"name": `.
func appendField(b []byte, indent, name string) []byte {
	b = append(b, indent...)
	b = append(b, '"')
	b = append(b, name...)
	return append(b, `": `...)
}

// appendStrings writes a list of strings at indent (null for nil, [] for
// none).
func appendStrings(b []byte, list []string, indent string) []byte {
	switch {
	case list == nil:
		return append(b, "null"...)
	case len(list) == 0:
		return append(b, "[]"...)
	}
	b = append(b, "[\n"...)
	for i, s := range list {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, indent...)
		b = append(b, "  "...)
		b = appendJSONString(b, s)
	}
	b = append(b, '\n')
	b = append(b, indent...)
	return append(b, ']')
}

// appendValue writes a rarely present nested value through encoding/json,
// indented to sit at indent.
func appendValue(b []byte, v any, indent string) ([]byte, error) {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimRight(raw.Bytes(), "\n"), indent, "  "); err != nil {
		return nil, err
	}
	return append(b, out.Bytes()...), nil
}

// appendJSONString writes s quoted as encoding/json does without HTML
// escaping: control characters, quotes and backslashes escaped, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
