package review

import (
	"strings"
)

// table is one markdown (GFM) pipe table: its header cells and rows, each
// with the 1-based line it sits on.
type table struct {
	line   int
	header []string
	rows   []tableRow
}

type tableRow struct {
	line  int
	cells []string
}

// tables finds the pipe tables of doc, skipping fenced code blocks and
// HTML comments (a template's example is not a record). A table is a line
// starting with '|' followed by a delimiter line (|---|:--:|); its rows run
// until the first line that does not start with '|'.
func tables(doc string) []table {
	lines := strings.Split(strings.ReplaceAll(doc, "\r\n", "\n"), "\n")
	var out []table
	fence, comment := "", false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case fence != "":
			if strings.HasPrefix(l, fence) {
				fence = ""
			}
			continue
		case comment:
			if strings.Contains(l, "-->") {
				comment = false
			}
			continue
		case strings.HasPrefix(l, "```"), strings.HasPrefix(l, "~~~"):
			fence = l[:3]
			continue
		case strings.HasPrefix(l, "<!--"):
			comment = !strings.Contains(l[4:], "-->")
			continue
		}
		if !strings.HasPrefix(l, "|") || i+1 >= len(lines) || !isDelimiter(strings.TrimSpace(lines[i+1])) {
			continue
		}
		t := table{line: i + 1, header: cells(l)}
		i += 2
		for ; i < len(lines); i++ {
			r := strings.TrimSpace(lines[i])
			if !strings.HasPrefix(r, "|") {
				break
			}
			t.rows = append(t.rows, tableRow{line: i + 1, cells: cells(r)})
		}
		i-- // the loop's i++ revisits the line that ended the table
		out = append(out, t)
	}
	return out
}

// isDelimiter reports whether l is a table's delimiter row.
func isDelimiter(l string) bool {
	if !strings.HasPrefix(l, "|") {
		return false
	}
	cs := cells(l)
	if len(cs) == 0 {
		return false
	}
	for _, c := range cs {
		c = strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// cells splits a row on unescaped pipes, dropping the outer ones, and
// trims each cell; "\|" is a literal pipe.
func cells(l string) []string {
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// plain strips the emphasis and code marks a writer may put around a
// value (**2**, `cr-…`).
func plain(s string) string {
	s = strings.TrimSpace(s)
	for _, m := range []string{"**", "__", "`", "*", "_"} {
		if len(s) >= 2*len(m) && strings.HasPrefix(s, m) && strings.HasSuffix(s, m) {
			s = strings.TrimSpace(s[len(m) : len(s)-len(m)])
		}
	}
	return s
}

// columnKey normalises a header cell: lower case, marks stripped, spaces
// collapsed.
func columnKey(h string) string {
	return strings.Join(strings.Fields(strings.ToLower(plain(h))), " ")
}
