package service

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
	"github.com/the-loop/the-loop/internal/markdown"
)

// maxLocateBytes bounds the artifact read to place a finding on a line.
const maxLocateBytes = 4 << 20

var (
	reLongLine     = lazyre.New(`^line (\d+) exceeds \d+ characters$`)
	reMermaid      = regexp.MustCompile(`^mermaid block (\d+)(?: line (\d+):)?`)
	reEmptySection = lazyre.New(`^required section is empty: (.+)$`)
	reCriterion    = lazyre.New(`^success criterion is not ticked: (.+)$`)
	reUnticked     = regexp.MustCompile(`^\d+ task\(s\) still unticked$`)
	reFrontMatter  = regexp.MustCompile(`^front-matter ([^:\s]+): `)
	reNotLocked    = lazyre.New(`^artifact is not locked — front-matter says status: `)
)

// findingLine is the 1-based line of file that a validator finding is
// about, or 0 when the finding names no line (a missing artifact or
// section) or the file cannot be read. Line numbers the validator states
// are used as they are; the others are found the way the validator finds
// what it reports: a heading by its title outside fences and front matter,
// the first unticked "- [ ]" box outside quotes, a front-matter key.
func findingLine(file, text string) int {
	if m := reLongLine().FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if m := reMermaid.FindStringSubmatch(text); m != nil {
		return mermaidLine(file, m[1], m[2])
	}
	locate := lineLocator(text)
	if locate == nil {
		return 0
	}
	lines, ok := readLines(file)
	if !ok {
		return 0
	}
	return locate(lines)
}

// lineLocator finds the line a finding's text is about, nil when the text
// names none.
func lineLocator(text string) func([]string) int {
	if m := reEmptySection().FindStringSubmatch(text); m != nil {
		title := strings.TrimSpace(m[1])
		return func(lines []string) int { return headingLine(lines, title) }
	}
	if m := reCriterion().FindStringSubmatch(text); m != nil {
		c := strings.ToLower(strings.TrimSpace(m[1]))
		return func(lines []string) int {
			return firstLine(lines, func(l string) bool {
				return strings.Contains(l, "[ ]") && strings.Contains(strings.ToLower(l), c)
			})
		}
	}
	if reUnticked.MatchString(text) {
		return func(lines []string) int {
			return firstLine(lines, func(l string) bool {
				return strings.Contains(l, "- [ ]") && !strings.HasPrefix(strings.TrimLeft(l, " \t"), ">")
			})
		}
	}
	if m := reFrontMatter.FindStringSubmatch(text); m != nil {
		return func(lines []string) int { return frontMatterLine(lines, m[1]) }
	}
	if reNotLocked().MatchString(text) {
		return func(lines []string) int { return frontMatterLine(lines, "status") }
	}
	return nil
}

// readLines reads a bounded artifact as lines (CRLF and CR normalised).
func readLines(file string) ([]string, bool) {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxLocateBytes {
		return nil, false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	s := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\r", "\n")
	return strings.Split(s, "\n"), true
}

// frontMatterEnd is the index of the line closing the front matter (0 when
// there is none): the block opens on a first line starting with "---".
func frontMatterEnd(lines []string) int {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "---") {
		return 0
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			return i
		}
	}
	return 0
}

func frontMatterLine(lines []string, key string) int {
	end := frontMatterEnd(lines)
	for i := 1; i < end; i++ {
		if k, _, ok := strings.Cut(lines[i], ":"); ok && k == key {
			return i + 1
		}
	}
	return 0
}

// headingLine is the last heading titled title outside fences (the
// validator keeps the last of repeated titles).
func headingLine(lines []string, title string) int {
	found, inFence := 0, false
	for i := bodyStart(lines); i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(strings.TrimLeft(l, " \t\v\f"), "```"):
			inFence = !inFence
		case !inFence && strings.HasPrefix(l, "#"):
			if strings.TrimSpace(strings.TrimLeft(l, "#")) == title {
				found = i + 1
			}
		}
	}
	return found
}

func firstLine(lines []string, match func(string) bool) int {
	for i := bodyStart(lines); i < len(lines); i++ {
		if match(lines[i]) {
			return i + 1
		}
	}
	return 0
}

// bodyStart is the index of the first line after the front matter.
func bodyStart(lines []string) int {
	if end := frontMatterEnd(lines); end > 0 {
		return end + 1
	}
	return 0
}

// mermaidLine is the line of block n's opening fence, or of line k within
// the block's content (counted after its leading blank lines).
func mermaidLine(file, n, k string) int {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > maxLocateBytes {
		return 0
	}
	idx, _ := strconv.Atoi(n)
	for _, blk := range markdown.MermaidBlocks(string(b)) {
		if blk.Index != idx {
			continue
		}
		within, _ := strconv.Atoi(k)
		if within == 0 {
			return blk.Line
		}
		lead := 0
		for lead < len(blk.Lines) && strings.TrimSpace(blk.Lines[lead]) == "" {
			lead++
		}
		return blk.Line + lead + within
	}
	return 0
}
