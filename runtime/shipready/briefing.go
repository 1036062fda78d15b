package shipready

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
	"github.com/the-loop/the-loop/internal/markdown"
)

// BriefingKey marks the reviewer briefing comment on a pull request; it is
// the key integrations.UpsertComment keeps one comment for.
const BriefingKey = "<!-- the-loop:pr-briefing -->"

// briefingHeadPrefix starts the marker naming the head commit a briefing
// describes.
const briefingHeadPrefix = "<!-- the-loop:pr-briefing-head "

var briefingHead = lazyre.New(`<!-- the-loop:pr-briefing-head ([0-9a-f]{40}(?:[0-9a-f]{24})?) -->`)

// maxBriefing is GitHub's limit on a comment body.
const maxBriefing = 65536

// Briefing is the reviewer briefing found on a pull request.
type Briefing struct {
	// Posted says the loop's briefing comment exists.
	Posted bool
	// HeadSHA is the head commit it describes ("" when unreadable).
	HeadSHA string
	URL     string
	// CommentID is the comment's id.
	CommentID int64
}

// FindBriefing returns the newest briefing the loop itself posted on the
// pull request's conversation: a comment carrying BriefingKey that
// integrations.IsOwnComment accepts for selfLogins. Anybody can type the
// markers, so a briefing by anyone else is never found. A briefing whose
// head marker is missing or appears more than once describes no commit.
func FindBriefing(comments []integrations.Comment, selfLogins []string) Briefing {
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if !strings.Contains(c.Body, BriefingKey) || !integrations.IsOwnComment(c, selfLogins) {
			continue
		}
		b := Briefing{Posted: true, URL: c.URL, CommentID: c.ID}
		if m := briefingHead().FindAllStringSubmatch(c.Body, -1); len(m) == 1 && strings.Count(c.Body, briefingHeadPrefix) == 1 {
			b.HeadSHA = m[0][1]
		}
		return b
	}
	return Briefing{}
}

// BriefingInput is what RenderBriefing reads.
type BriefingInput struct {
	// Template is the PR-briefing template: its `## ` headings, in order,
	// are the briefing's sections. One must be about where to focus (its
	// title mentions "focus") and one about the low-level decisions (its
	// title mentions "decision").
	Template string
	// Filled is the briefing written from the template for this change.
	Filled string
	// PullRequest names the pull request; HeadSHA is the commit the
	// briefing describes.
	PullRequest integrations.PullRequest
}

// RenderBriefing returns the reviewer briefing comment body: every template
// section, in the template's order, filled from in.Filled, with at least
// one mermaid diagram that renders, and the markers FindBriefing reads. A
// section left empty or still holding the template's own text is an
// error naming it. HTML comments in the filled text are dropped, so no
// marker can be smuggled into the comment.
func RenderBriefing(in BriefingInput) (string, error) {
	if !fullSHA().MatchString(in.PullRequest.HeadSHA) {
		return "", fmt.Errorf("reviewer briefing: the head commit %q of %s is not a full SHA", in.PullRequest.HeadSHA, prName(in.PullRequest))
	}
	_, tmplBody := markdown.SplitFrontMatter(in.Template)
	titles := h2Titles(tmplBody)
	if len(titles) == 0 {
		return "", fmt.Errorf("reviewer briefing: the PR-briefing template has no `## ` sections")
	}
	for _, role := range []struct{ word, what string }{{"focus", "where to focus"}, {"decision", "the low-level decisions"}} {
		if !anyTitleHas(titles, role.word) {
			return "", fmt.Errorf("reviewer briefing: the PR-briefing template has no section for %s (a `## ` heading containing %q)", role.what, role.word)
		}
	}
	guidance := markdown.Sections(tmplBody)
	_, filledBody := markdown.SplitFrontMatter(in.Filled)
	filled := markdown.Sections(filledBody)
	var b strings.Builder
	fmt.Fprintf(&b, "## Reviewer briefing · %s\n\n", prName(in.PullRequest))
	fmt.Fprintf(&b, "_Head commit `%s`. This comment is edited in place on every push._\n", short(in.PullRequest.HeadSHA))
	var missing []string
	for _, title := range titles {
		content := strings.TrimSpace(stripHTMLComments(filled[title]))
		if content == "" || content == strings.TrimSpace(stripHTMLComments(guidance[title])) {
			missing = append(missing, "`## "+title+"`")
			continue
		}
		if fences(content)%2 != 0 {
			return "", fmt.Errorf("reviewer briefing: the `## %s` section opens a ``` fence it never closes", title)
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s\n", title, content)
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("reviewer briefing: fill %s from the PR-briefing template (empty, or still the template's text)", strings.Join(missing, ", "))
	}
	blocks := markdown.MermaidBlocks(b.String())
	if len(blocks) == 0 {
		return "", fmt.Errorf("reviewer briefing: add a mermaid diagram (a ```mermaid block) of what changed")
	}
	if lint := markdown.LintMermaid(blocks); len(lint) > 0 {
		return "", fmt.Errorf("reviewer briefing: %s", strings.Join(lint, "; "))
	}
	fmt.Fprintf(&b, "\n%s\n%s%s -->\n", BriefingKey, briefingHeadPrefix, in.PullRequest.HeadSHA)
	out := b.String()
	if n := len([]rune(integrations.MarkSelfAuthored(out))); n > maxBriefing {
		return "", fmt.Errorf("reviewer briefing: the comment would be %d characters; GitHub allows %d, so shorten the briefing", n, maxBriefing)
	}
	return out, nil
}

// h2Titles returns the titles of text's level-2 headings, in order,
// skipping fenced code.
func h2Titles(text string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "```") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(line, "## ") {
			if t := strings.TrimSpace(line[3:]); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func anyTitleHas(titles []string, word string) bool {
	for _, t := range titles {
		if markdown.ContainsFoldASCII(t, word) {
			return true
		}
	}
	return false
}

// fences counts the fence lines of text.
func fences(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "```") {
			n++
		}
	}
	return n
}
