package markdown

import "strings"

// Sections maps each heading title of body to its content. A heading is a
// line whose first character is '#' (no leading space; "#tag" is a level-1
// heading); its level is the number of leading '#' and its title the rest of
// the line, trimmed. A line whose left-trimmed form starts with "```" opens or
// closes a fence, and lines inside a fence are never headings. A section runs
// to the next heading of the same or a higher level, so it owns its
// subsections (their heading lines are part of its content). Content is
// trimmed of surrounding whitespace. When a title repeats, the last wins.
func Sections(body string) map[string]string {
	body = normalizeNewlines(body)
	type open struct {
		title        string
		level        int
		contentStart int
		content      string
	}
	var all []open
	var stack []int // indices into all, increasing levels
	inFence := false
	closeUntil := func(level, at int) {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if all[top].level < level {
				return
			}
			all[top].content = strings.TrimSpace(body[all[top].contentStart:at])
			stack = stack[:len(stack)-1]
		}
	}
	pos := 0
	for raw := range strings.Lines(body) {
		next := pos + len(raw)
		line := strings.TrimSuffix(raw, "\n")
		switch {
		case isFence(line):
			inFence = !inFence
		case !inFence && len(line) > 0 && line[0] == '#':
			level := 0
			for level < len(line) && line[level] == '#' {
				level++
			}
			closeUntil(level, pos)
			all = append(all, open{
				title:        strings.TrimSpace(line[level:]),
				level:        level,
				contentStart: next,
			})
			stack = append(stack, len(all)-1)
		}
		pos = next
	}
	closeUntil(0, len(body))
	out := make(map[string]string, len(all))
	for _, s := range all {
		out[s.title] = s.content
	}
	return out
}

// CountUnticked counts the literal "- [ ]" task boxes in body, inside code
// fences and nested bullets included ("* [ ]" is not counted), except on
// blockquoted lines: quoted review replies are not the artifact's tasks.
func CountUnticked(body string) int {
	if !strings.Contains(body, "- [ ]") {
		return 0
	}
	n := 0
	for line := range strings.Lines(body) {
		// A quoted line is somebody's words (record-feedback quotes every
		// review reply), not a task of this artifact.
		if strings.HasPrefix(trimIndent(line, false), ">") {
			continue
		}
		n += strings.Count(line, "- [ ]")
	}
	return n
}

// isFence reports a line whose left-trimmed form (spaces, tabs, vertical
// tabs, form feeds and carriage returns) starts with ```.
func isFence(line string) bool {
	return strings.HasPrefix(trimIndent(line, true), "```")
}

// trimIndent is strings.TrimLeft(s, " \t"), or with more strings.TrimLeft(s,
// " \t\v\f\r"), without building a cutset for every line.
func trimIndent(s string, more bool) string {
	i := 0
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
		case more && (c == '\v' || c == '\f' || c == '\r'):
		default:
			return s[i:]
		}
	}
	return s[i:]
}

// normalizeNewlines turns CRLF and lone CR line ends into LF; it returns the
// input unchanged (no copy) when there is nothing to do.
func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// BlankSections returns body with the content of every section titled one
// of titles (exactly, as Sections reads titles) removed: the heading line
// stays, what follows it up to the next heading of the same or a higher
// level goes. Line ends are normalized to LF.
func BlankSections(body string, titles []string) string {
	if len(titles) == 0 {
		return normalizeNewlines(body)
	}
	want := make(map[string]bool, len(titles))
	for _, t := range titles {
		want[strings.TrimSpace(t)] = true
	}
	body = normalizeNewlines(body)
	var b strings.Builder
	inFence := false
	skipBelow := 0 // while > 0, drop lines until a heading of this level or higher
	for raw := range strings.Lines(body) {
		line := strings.TrimSuffix(raw, "\n")
		if isFence(line) {
			inFence = !inFence
		} else if !inFence && len(line) > 0 && line[0] == '#' {
			level := 0
			for level < len(line) && line[level] == '#' {
				level++
			}
			if skipBelow > 0 && level <= skipBelow {
				skipBelow = 0
			}
			if skipBelow == 0 && want[strings.TrimSpace(line[level:])] {
				b.WriteString(raw)
				skipBelow = level
				continue
			}
		}
		if skipBelow == 0 {
			b.WriteString(raw)
		}
	}
	return b.String()
}

// ClearTicks returns text with every task box of a list item ("- [x]",
// "* [X]", "+ [x]", indented or not) unticked: the form of a checklist
// whose ticking is left to a later step.
func ClearTicks(text string) string {
	var b strings.Builder
	for raw := range strings.Lines(text) {
		trimmed := trimIndent(raw, false)
		if len(trimmed) >= 5 && strings.ContainsRune("-*+", rune(trimmed[0])) && trimmed[1] == ' ' &&
			(strings.HasPrefix(trimmed[2:], "[x]") || strings.HasPrefix(trimmed[2:], "[X]")) {
			indent := raw[:len(raw)-len(trimmed)]
			b.WriteString(indent + trimmed[:2] + "[ ]" + trimmed[5:])
			continue
		}
		b.WriteString(raw)
	}
	return b.String()
}
