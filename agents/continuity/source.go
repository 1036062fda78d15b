package continuity

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ExcludedError refuses a brief because the project or a source path
// matches the exclude list.
type ExcludedError struct {
	// What is "project" or "path".
	What  string `json:"what"`
	Value string `json:"value"`
	Entry string `json:"entry"`
}

// Error names the excluded project or path and the matching entry.
func (e *ExcludedError) Error() string {
	return fmt.Sprintf("continuity: source excluded: %s %s matches exclude entry %q; no brief emitted", e.What, e.Value, e.Entry)
}

// matchExclude returns the first exclude entry matching value: equal
// (case-insensitive), a glob match, value inside the entry's directory, or
// an identity ending in "/"+entry (so "owner/name" matches
// "github.com/owner/name").
func matchExclude(entries []string, value string) string {
	v := filepath.ToSlash(value)
	for _, raw := range entries {
		e := strings.TrimRight(filepath.ToSlash(strings.TrimSpace(raw)), "/")
		if e == "" {
			continue
		}
		lv, le := strings.ToLower(v), strings.ToLower(e)
		if lv == le || strings.HasPrefix(lv, le+"/") || strings.HasSuffix(lv, "/"+le) {
			return raw
		}
		if strings.ContainsAny(e, "*?[") {
			// A glob may match the whole value or any trailing part of it.
			for tail := lv; ; {
				if ok, _ := path.Match(le, tail); ok {
					return raw
				}
				i := strings.IndexByte(tail, '/')
				if i < 0 {
					break
				}
				tail = tail[i+1:]
			}
		}
	}
	return ""
}

// candidate is one continuity directory a brief could be built from.
type candidate struct {
	dir      string
	live     bool
	excluded *ExcludedError
	modTime  time.Time
}

func (s *Set) candidates(exclude []string) []candidate {
	dirs := []string{s.Dir()}
	for _, d := range s.preservedDirs() {
		dirs = append(dirs, filepath.Join(s.Root, filepath.FromSlash(d)))
	}
	var out []candidate
	for i, dir := range dirs {
		c := candidate{dir: dir, live: i == 0}
		if st, err := os.Stat(filepath.Join(dir, DeathPointFile)); err == nil {
			c.modTime = st.ModTime()
		} else if i > 0 {
			continue
		}
		c.excluded = s.excludedPath(exclude, dir)
		out = append(out, c)
	}
	return out
}

// excludedPath checks a source directory and its files, absolute and
// repository-relative, before any of them is read.
func (s *Set) excludedPath(exclude []string, dir string) *ExcludedError {
	paths := []string{dir}
	for _, f := range []string{DeathPointFile, NotesFile, GraphFile} {
		paths = append(paths, filepath.Join(dir, f))
	}
	for _, p := range paths {
		for _, v := range []string{p, s.rel(p)} {
			if e := matchExclude(exclude, v); e != "" {
				return &ExcludedError{What: "path", Value: s.rel(p), Entry: e}
			}
		}
	}
	return nil
}

// briefSource is the resolved source of a brief.
type briefSource struct {
	dir     string
	live    bool
	dp      DeathPoint
	notes   *Notes
	graph   *TaskGraph
	notices []string
	newer   int
}

// resolveSource applies the exclude list, then picks the source by exact
// handle (full or short) or the live set, rejecting ambiguity and other
// projects, and only then reads its content.
func (s *Set) resolveSource(handle string, exclude []string) (briefSource, error) {
	for _, v := range []string{s.Identity, s.Root} {
		if e := matchExclude(exclude, v); e != "" {
			return briefSource{}, &ExcludedError{What: "project", Value: s.Identity, Entry: e}
		}
	}
	cands := s.candidates(exclude)
	var chosen *candidate
	var chosenDP DeathPoint
	if handle == "" {
		live := cands[0]
		if live.excluded != nil {
			return briefSource{}, live.excluded
		}
		dp, err := readDeathPoint(live.dir)
		if err != nil {
			return briefSource{}, fmt.Errorf("continuity: no live continuity set to brief (%v): start one with `the-loop continuity init --goal TEXT`, or pass --source HANDLE", err)
		}
		chosen, chosenDP = &cands[0], dp
	} else {
		var matches []string
		var visible []string
		withheld := 0
		for i := range cands {
			c := &cands[i]
			if c.excluded != nil {
				withheld++
				continue
			}
			dp, err := readDeathPoint(c.dir)
			if err != nil {
				continue
			}
			visible = append(visible, dp.Session)
			if dp.Session == handle || ShortHandle(dp.Session) == handle {
				matches = append(matches, dp.Session+" ("+s.rel(c.dir)+")")
				chosen, chosenDP = c, dp
			}
		}
		switch {
		case len(matches) > 1:
			return briefSource{}, fmt.Errorf("continuity: source handle %q is ambiguous: it matches %s; pass one exact full handle", handle, strings.Join(matches, ", "))
		case len(matches) == 0:
			msg := fmt.Sprintf("continuity: no continuity source has handle %q", handle)
			if len(visible) > 0 {
				msg += "; visible handles: " + strings.Join(visible, ", ")
			}
			if withheld > 0 {
				msg += fmt.Sprintf("; %d source(s) withheld by the exclude list", withheld)
			}
			return briefSource{}, errors.New(msg)
		}
	}
	if !strings.EqualFold(chosenDP.Repository, s.Identity) {
		return briefSource{}, fmt.Errorf("continuity: source %s belongs to another project (%s, not %s); no brief emitted", chosenDP.Session, chosenDP.Repository, s.Identity)
	}
	src := briefSource{dir: chosen.dir, live: chosen.live, dp: chosenDP}
	for _, c := range cands {
		if c.excluded != nil && c.dir != chosen.dir && c.modTime.After(chosenDP.Updated) {
			src.newer++
		}
	}
	if data, ok, err := readOptional(filepath.Join(chosen.dir, NotesFile)); err == nil && ok {
		if n, err := parseNotes(data); err == nil {
			src.notes = &n
		} else {
			src.notices = append(src.notices, fmt.Sprintf("notes unusable (%v); built from the death point", err))
		}
	} else {
		src.notices = append(src.notices, "notes.md is missing; built from the death point")
	}
	if data, ok, err := readOptional(filepath.Join(chosen.dir, GraphFile)); err == nil && ok {
		if g, err := parseGraph(data); err == nil {
			src.graph = &g
		} else {
			src.notices = append(src.notices, fmt.Sprintf("graph unusable (%v)", err))
		}
	} else {
		src.notices = append(src.notices, "graph.md is missing")
	}
	sort.Strings(src.notices)
	return src, nil
}

func readDeathPoint(dir string) (DeathPoint, error) {
	data, err := os.ReadFile(filepath.Join(dir, DeathPointFile))
	if err != nil {
		return DeathPoint{}, fmt.Errorf("read %s: %w", DeathPointFile, err)
	}
	return parseDeathPoint(data)
}
