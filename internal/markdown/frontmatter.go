// Package markdown reads the parts of a spec artifact the process gates look
// at: the YAML front matter, the heading sections, unticked task boxes and
// mermaid diagram blocks. Every function is a single linear scan over the
// text; none uses regular expressions.
package markdown

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// fmBounds locates a front-matter block: text[yamlStart:yamlEnd] is the YAML,
// text[bodyStart:] the body. ok is false when the text has no closed block.
type fmBounds struct {
	yamlStart, yamlEnd, bodyStart int
	ok                            bool
}

// locateFrontMatter finds the block opened by a first line starting with
// "---" and closed by the first later line whose trimmed form is "---".
func locateFrontMatter(text string) fmBounds {
	if !strings.HasPrefix(text, "---") {
		return fmBounds{}
	}
	nl := strings.IndexByte(text, '\n')
	if nl < 0 {
		return fmBounds{}
	}
	start := nl + 1
	pos := start
	for raw := range strings.Lines(text[start:]) {
		next := pos + len(raw)
		if strings.TrimSpace(raw) == "---" {
			return fmBounds{yamlStart: start, yamlEnd: pos, bodyStart: next, ok: true}
		}
		pos = next
	}
	return fmBounds{}
}

// SplitFrontMatter separates a leading YAML front-matter block from the body.
// The block exists only when the text starts with "---" and a later line is
// exactly "---" (surrounding whitespace ignored). A block that does not parse,
// is not a mapping, or is never closed yields an empty map and the whole text
// as the body. An empty block yields an empty map and the text after it.
func SplitFrontMatter(text string) (fm map[string]any, body string) {
	b := locateFrontMatter(text)
	if !b.ok {
		return map[string]any{}, text
	}
	raw := text[b.yamlStart:b.yamlEnd]
	if m, ok := parseSimpleYAML(raw); ok {
		return m, text[b.bodyStart:]
	}
	if m, ok := parseYAMLMapping(raw); ok {
		return m, text[b.bodyStart:]
	}
	return map[string]any{}, text
}

// parseYAMLMapping is the one reading of a front-matter block: yaml.v3's.
// ok is false when the block does not parse or is not a mapping; an empty
// block is an empty mapping. Non-string keys are rendered with fmt.Sprint.
func parseYAMLMapping(raw string) (map[string]any, bool) {
	var v any
	if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
		return nil, false
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, true
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, val := range m {
			out[fmt.Sprint(k)] = val
		}
		return out, true
	}
	return nil, false
}

// String renders a front-matter value the way the gates compare it: ""
// for a missing or null value, the scalar's text otherwise.
func String(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}
