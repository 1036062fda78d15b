package continuity

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// Path kinds the detector reports.
const (
	PathAbsolute = "absolute"
	PathHome     = "home"
	PathWindows  = "windows"
	PathRelative = "relative"
	PathCheckout = "checkout"
)

// PathHit is one filesystem path found in a line.
type PathHit struct {
	Token string `json:"token"`
	Kind  string `json:"kind"`
}

var (
	driveRE     = regexp.MustCompile(`^[A-Za-z]:[\\/]`)
	homeUserRE  = regexp.MustCompile(`^~[A-Za-z0-9._-]+[/\\]`)
	backslashRE = regexp.MustCompile(`^[\w.-]+(\\[\w. -]+)+$`)
	hostRE      = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$`)
	extRE       = lazyre.New(`^[^.]+.*\.[A-Za-z0-9]{1,8}$`)
	scpRE       = regexp.MustCompile(`^[\w.-]+@[\w.-]+:`)
	digitsRE    = regexp.MustCompile(`^[0-9]+$`)
	homeVars    = []string{"$home", "${home}", "%userprofile%", "%homepath%", "$env:userprofile"}
	systemRoots = map[string]bool{"home": true, "users": true, "tmp": true, "etc": true, "var": true, "usr": true,
		"opt": true, "work": true, "mnt": true, "root": true, "private": true, "srv": true, "volumes": true}
)

// FindPaths returns the filesystem paths in line. URLs (other than file:)
// and "owner/name" or module anchors are not paths. roots are the names of
// the checkout's top-level entries: "cmd/x" is a path when "cmd" is one.
func FindPaths(line string, roots []string) []PathHit {
	rootSet := map[string]bool{}
	for _, r := range roots {
		rootSet[r] = true
	}
	var hits []PathHit
	for _, field := range strings.Fields(line) {
		for _, part := range strings.Split(field, "=") {
			tok := trimToken(part)
			if kind := pathKind(tok, rootSet); kind != "" {
				hits = append(hits, PathHit{Token: tok, Kind: kind})
			}
		}
	}
	return hits
}

func trimToken(t string) string {
	t = strings.TrimLeft(t, "\"'`([{<")
	for t != "" && strings.ContainsRune("\"'`)]}>,;:!?", rune(t[len(t)-1])) {
		t = t[:len(t)-1]
	}
	if strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "..") && t != "." {
		t = strings.TrimRight(t, ".")
	}
	return t
}

func pathKind(t string, roots map[string]bool) string {
	if t == "" {
		return ""
	}
	low := strings.ToLower(t)
	if i := strings.Index(t, "://"); i > 0 {
		if low[:i] == "file" {
			return PathAbsolute
		}
		return ""
	}
	switch {
	case strings.HasPrefix(low, "file:"):
		return PathAbsolute
	case t == "~" || strings.HasPrefix(t, "~/") || strings.HasPrefix(t, `~\`) || homeUserRE.MatchString(t):
		return PathHome
	case driveRE.MatchString(t) || strings.HasPrefix(t, `\\`):
		return PathWindows
	case scpRE.MatchString(t):
		return ""
	}
	for _, v := range homeVars {
		if strings.HasPrefix(low, v) {
			return PathHome
		}
	}
	if strings.HasPrefix(t, "/") {
		rest := t[1:]
		if rest == "" || strings.HasPrefix(rest, "/") {
			return ""
		}
		first := strings.SplitN(rest, "/", 2)[0]
		if strings.Contains(rest, "/") || systemRoots[strings.ToLower(first)] {
			return PathAbsolute
		}
		return "" // a slash command such as /the-loop:status
	}
	for _, p := range []string{"./", "../", `.\`, `..\`} {
		if strings.HasPrefix(t, p) {
			return PathRelative
		}
	}
	if strings.Contains(t, `\`) && backslashRE.MatchString(t) {
		return PathRelative
	}
	if !strings.Contains(t, "/") {
		return ""
	}
	segs := strings.Split(strings.Trim(t, "/"), "/")
	first := segs[0]
	switch {
	case hostRE.MatchString(strings.ToLower(first)):
		return "" // github.com/owner/name, gopkg.in/yaml.v3
	case len(first) > 1 && first[0] == '.':
		return PathRelative
	case roots[first]:
		return PathCheckout
	case strings.HasSuffix(t, "/") && first != "":
		return PathRelative
	case extRE().MatchString(segs[len(segs)-1]):
		return PathRelative
	case len(segs) >= 3 && !allDigits(segs):
		return PathRelative
	}
	return ""
}

func allDigits(segs []string) bool {
	for _, s := range segs {
		if !digitsRE.MatchString(s) {
			return false
		}
	}
	return true
}

// scrubbed is the outcome of making one line path-free.
type scrubbed struct {
	line      string
	dropped   bool
	rewritten []string
	// hits are every path found in the line, problems say (one per path
	// that could not be made portable) why the line was dropped, and
	// redacted is the line with each path replaced by a kind placeholder.
	hits     []PathHit
	problems []string
	redacted string
}

// note is the omission note for a dropped line: why it went and what it
// said, without repeating any path.
func (s scrubbed) note() string {
	return fmt.Sprintf("dropped a line naming %s: %q", strings.Join(s.problems, " and "), s.redacted)
}

// scrubLine rewrites each path in line as the portable name it ends in (a
// file or package name is a search term, not a location). A path that
// points outside the repository, or has no portable name, cannot be
// rewritten without losing its meaning, so the whole line is dropped.
func scrubLine(line string, roots []string, repoRoot, home string) scrubbed {
	hits := FindPaths(line, roots)
	if len(hits) == 0 {
		return scrubbed{line: line}
	}
	res := scrubbed{hits: hits, redacted: line}
	out := line
	for _, h := range hits {
		res.redacted = strings.Replace(res.redacted, h.Token, "<"+kindLabel(h.Kind)+" path>", 1)
		if why := unportable(h, repoRoot, home); why != "" {
			res.problems = append(res.problems, why)
			continue
		}
		base := portableName(h.Token)
		out = strings.Replace(out, h.Token, base, 1)
		res.rewritten = append(res.rewritten, base)
	}
	res.redacted = capItem(res.redacted)
	if len(res.problems) == 0 && len(FindPaths(out, roots)) > 0 {
		res.problems = append(res.problems, "a path whose last part still reads as a path")
	}
	if len(res.problems) > 0 {
		res.dropped, res.rewritten = true, nil
		return res
	}
	res.line = out
	return res
}

// kindLabel names a path kind for people: a checkout path is one relative
// to the repository root.
func kindLabel(kind string) string {
	if kind == PathCheckout {
		return "repo-relative"
	}
	return kind
}

// unportable says why h cannot become a portable name, or "" when it can.
func unportable(h PathHit, repoRoot, home string) string {
	if !insideRepo(h, repoRoot, home) {
		switch h.Kind {
		case PathAbsolute:
			return "an absolute path outside the repository"
		case PathHome:
			return "a home-directory path outside the repository"
		case PathWindows:
			return "a Windows drive or network-share path"
		default:
			return "a " + kindLabel(h.Kind) + " path that leaves the repository"
		}
	}
	if portableName(h.Token) == "" {
		article := "a "
		if h.Kind == PathAbsolute {
			article = "an "
		}
		return article + kindLabel(h.Kind) + " path with no portable name"
	}
	return ""
}

func insideRepo(h PathHit, repoRoot, home string) bool {
	switch h.Kind {
	case PathRelative, PathCheckout:
		return !strings.HasPrefix(h.Token, "..")
	case PathAbsolute:
		p := filepath.Clean(h.Token)
		return repoRoot != "" && (p == repoRoot || strings.HasPrefix(p, repoRoot+string(filepath.Separator)))
	case PathHome:
		if home == "" || !strings.HasPrefix(h.Token, "~/") {
			return false
		}
		p := filepath.Join(home, h.Token[2:])
		return repoRoot != "" && strings.HasPrefix(p, repoRoot+string(filepath.Separator))
	}
	return false
}

func portableName(tok string) string {
	t := strings.TrimRight(strings.ReplaceAll(tok, `\`, "/"), "/")
	base := t[strings.LastIndex(t, "/")+1:]
	if base == "" || base == "." || base == ".." || base == "~" {
		return ""
	}
	return "`" + base + "`"
}
