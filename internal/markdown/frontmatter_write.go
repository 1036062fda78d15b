package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Field is one top-level front-matter key and the value to give it.
type Field struct {
	Key   string
	Value any
}

// ErrBadFrontMatter reports a front-matter block that exists but cannot be
// edited safely (unclosed, not YAML, or not a mapping).
var ErrBadFrontMatter = errors.New("the front matter is not a closed YAML mapping")

// SetFrontMatter returns text with each field set as a top-level key of its
// front matter. Only the lines of the keys being set change: every other key
// keeps its exact text, and the body after the block is kept byte for byte.
// Keys that are absent are appended at the end of the block; a text with no
// front matter gets a new block in front of it. Lists are written in flow
// style (`approvedBy: [alice, bob]`). A text that starts with "---" but whose
// block is unclosed or not a mapping is refused with ErrBadFrontMatter rather
// than guessed at.
func SetFrontMatter(text string, fields ...Field) (string, error) {
	for _, f := range fields {
		if strings.TrimSpace(f.Key) == "" || strings.ContainsAny(f.Key, ":\n") {
			return "", fmt.Errorf("front-matter key %q is not a plain key", f.Key)
		}
	}
	eol := "\n"
	if strings.HasPrefix(text, "---") {
		if nl := strings.IndexByte(text, '\n'); nl > 0 && text[nl-1] == '\r' {
			eol = "\r\n"
		}
	}
	b := locateFrontMatter(text)
	if !b.ok {
		if strings.HasPrefix(text, "---") {
			return "", fmt.Errorf("%w: no closing --- line", ErrBadFrontMatter)
		}
		var sb strings.Builder
		sb.WriteString("---" + eol)
		for _, f := range fields {
			line, err := encodeField(f, eol)
			if err != nil {
				return "", err
			}
			sb.WriteString(line)
		}
		sb.WriteString("---" + eol)
		sb.WriteString(text)
		return sb.String(), nil
	}

	block := text[b.yamlStart:b.yamlEnd]
	lines := splitKeepEnds(block)
	keyLines, err := topLevelKeyLines(block)
	if err != nil {
		return "", err
	}
	for _, f := range fields {
		enc, err := encodeField(f, eol)
		if err != nil {
			return "", err
		}
		idx := -1
		for i, k := range keyLines {
			if k.key == f.Key {
				idx = i
			}
		}
		if idx < 0 {
			if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] += eol
			}
			lines = append(lines, enc)
			keyLines = append(keyLines, keyLine{key: f.Key, line: len(lines) - 1})
			continue
		}
		start := keyLines[idx].line
		end := len(lines) // exclusive
		if idx+1 < len(keyLines) {
			end = keyLines[idx+1].line
		}
		// Blank and comment lines just before the next key belong to it.
		for end > start+1 && isBlankOrComment(lines[end-1]) {
			end--
		}
		repl := []string{enc}
		lines = append(lines[:start], append(repl, lines[end:]...)...)
		shift := 1 - (end - start)
		for i := idx + 1; i < len(keyLines); i++ {
			keyLines[i].line += shift
		}
	}
	out := text[:b.yamlStart] + strings.Join(lines, "") + text[b.yamlEnd:]
	if err := verifyFields(out, fields); err != nil {
		return "", err
	}
	return out, nil
}

type keyLine struct {
	key  string
	line int // 0-based line index within the block
}

// topLevelKeyLines parses the block and returns each top-level key with the
// line it starts on.
func topLevelKeyLines(block string) ([]keyLine, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFrontMatter, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil // empty block
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, ErrBadFrontMatter
	}
	out := make([]keyLine, 0, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Line < 1 {
			return nil, ErrBadFrontMatter
		}
		out = append(out, keyLine{key: k.Value, line: k.Line - 1})
	}
	return out, nil
}

// encodeField renders one "key: value" line (lists in flow style).
func encodeField(f Field, eol string) (string, error) {
	var val yaml.Node
	if err := val.Encode(f.Value); err != nil {
		return "", fmt.Errorf("encode front-matter %s: %w", f.Key, err)
	}
	if val.Kind == yaml.SequenceNode || val.Kind == yaml.MappingNode {
		val.Style = yaml.FlowStyle
	}
	m := yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: f.Key}, &val,
	}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&m); err != nil {
		return "", fmt.Errorf("encode front-matter %s: %w", f.Key, err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encode front-matter %s: %w", f.Key, err)
	}
	s := buf.String()
	if eol != "\n" {
		s = strings.ReplaceAll(s, "\n", eol)
	}
	return s, nil
}

// verifyFields re-reads the edited text and checks every field took effect,
// so a splice that produced something unexpected is never written.
func verifyFields(text string, fields []Field) error {
	fm, _ := SplitFrontMatter(text)
	for _, f := range fields {
		var want any
		var node yaml.Node
		if err := node.Encode(f.Value); err != nil {
			return fmt.Errorf("encode front-matter %s: %w", f.Key, err)
		}
		if err := node.Decode(&want); err != nil {
			return fmt.Errorf("decode front-matter %s: %w", f.Key, err)
		}
		if !reflect.DeepEqual(fm[f.Key], want) {
			return fmt.Errorf("%w: setting %s did not survive a re-read", ErrBadFrontMatter, f.Key)
		}
	}
	return nil
}

func splitKeepEnds(s string) []string {
	if s == "" {
		return nil
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func isBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}
