package continuity

import (
	"fmt"
	"strings"
	"unicode"
)

// TaskPathError refuses a delegation prompt whose task (or title) names a
// filesystem path that cannot be made portable, or is nothing but paths:
// dropping or emptying the task would leave the receiver nothing to review.
// No prompt is built and nothing is copied.
type TaskPathError struct {
	// Field is "task" or "title".
	Field string `json:"field"`
	// Paths are every path found in the field.
	Paths []PathHit `json:"paths"`
	// Problems say why the field could not be rewritten.
	Problems []string `json:"problems"`
}

func (e *TaskPathError) Error() string {
	found := make([]string, 0, len(e.Paths))
	for _, h := range e.Paths {
		found = append(found, fmt.Sprintf("\"%s\" (%s path)", h.Token, kindLabel(h.Kind)))
	}
	return fmt.Sprintf("continuity: the %s names filesystem paths a delegation prompt must not carry: %s; %s. "+
		"Fix: rephrase the %s without paths (name the file, package, symbol, command or issue URL instead), "+
		"or pass --allow-paths (allowPaths in the MCP tool) if the user explicitly wants the paths kept; no prompt emitted",
		e.Field, strings.Join(found, ", "), strings.Join(e.Problems, "; "), e.Field)
}

// portableField makes a required prompt field (the task or the title)
// path-free. It refuses rather than drop the field or leave only the
// portable names of its paths.
func portableField(field, text string, roots []string, repoRoot, home string) (string, []string, error) {
	sc := scrubLine(text, roots, repoRoot, home)
	if sc.dropped {
		return "", nil, &TaskPathError{Field: field, Paths: sc.hits, Problems: sc.problems}
	}
	if len(sc.hits) > 0 && onlyNames(sc.line, sc.rewritten) {
		return "", nil, &TaskPathError{Field: field, Paths: sc.hits,
			Problems: []string{"it is nothing but paths, so rewriting them leaves no " + field + " to delegate"}}
	}
	return sc.line, sc.rewritten, nil
}

// onlyNames reports whether line says nothing once the rewritten names are
// taken out of it.
func onlyNames(line string, names []string) bool {
	for _, n := range names {
		line = strings.Replace(line, n, "", 1)
	}
	return strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
}
