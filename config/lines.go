package config

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// keyAtLine returns the dotted path of the mapping key on line, or "".
func keyAtLine(root *yaml.Node, line int) string {
	var walk func(n *yaml.Node, prefix string) string
	walk = func(n *yaml.Node, prefix string) string {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if p := walk(c, prefix); p != "" {
					return p
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				path := k.Value
				if prefix != "" {
					path = prefix + "." + k.Value
				}
				if k.Line == line {
					return path
				}
				if p := walk(v, path); p != "" {
					return p
				}
				if v.Line == line && v.Kind == yaml.ScalarNode {
					return path
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if p := walk(c, prefix+"["+strconv.Itoa(i)+"]"); p != "" {
					return p
				}
				if c.Line == line && c.Kind == yaml.ScalarNode {
					return prefix + "[" + strconv.Itoa(i) + "]"
				}
			}
		}
		return ""
	}
	return walk(root, "")
}

// lineOfKey returns the line of the dotted key path (0 when absent).
func lineOfKey(root *yaml.Node, path string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(path, ".") {
		name, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			name = part[:i]
			idx, _ = strconv.Atoi(part[i+1 : len(part)-1])
		}
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == name {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	return line
}

var lineRE = regexp.MustCompile(`line (\d+): `)

// withKeys rewrites "line N: msg" as "line N: <key path>: msg".
func withKeys(root *yaml.Node, msg string) string {
	return lineRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(lineRE.FindStringSubmatch(m)[1])
		if k := keyAtLine(root, n); k != "" {
			return m + k + ": "
		}
		return m
	})
}
