package shipready_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/shipready"
)

const briefingTemplate = `---
kind: template
---
# PR briefing

## TL;DR
<!-- Two sentences: the change and its reason. -->

## Where to focus (in this order)
<!-- The files a reviewer should read first, most important first. -->

## What changed (map)
<!-- A mermaid diagram of the parts that moved. -->

## Key decisions & why
<!-- The low-level choices a reviewer would otherwise guess at. -->
`

const briefingFilled = `# Briefing for #12

## TL;DR
The poller now lists open pull requests once per repository.

## Where to focus (in this order)
1. service/poll.go: the cycle that compares head SHAs.
2. integrations/github/pulls.go: the conditional listing.

## What changed (map)
` + "```mermaid" + `
flowchart LR
  poller --> listing[open PR listing]
  listing --> detail[per-PR reads]
` + "```" + `

## Key decisions & why
- Details are read only when the head or updated_at moved.
`

func input() shipready.BriefingInput {
	return shipready.BriefingInput{Template: briefingTemplate, Filled: briefingFilled,
		PullRequest: integrations.PullRequest{Number: 12, HeadSHA: head}}
}

func TestRenderBriefing(t *testing.T) {
	body, err := shipready.RenderBriefing(input())
	require.NoError(t, err)
	order := []string{"## Reviewer briefing · pull request #12", "`aaaaaaa`", "### TL;DR", "### Where to focus (in this order)",
		"### What changed (map)", "```mermaid", "### Key decisions & why", shipready.BriefingKey, "<!-- the-loop:pr-briefing-head " + head + " -->"}
	at := -1
	for _, want := range order {
		i := strings.Index(body, want)
		require.GreaterOrEqual(t, i, 0, "missing %q in\n%s", want, body)
		assert.Greater(t, i, at, "%q out of order", want)
		at = i
	}
	assert.NotContains(t, body, "# Briefing for #12", "only the template's sections are rendered")

	posted := integrations.Comment{ID: 5, Author: "loop-bot", URL: "https://github.com/o/r/pull/12#issuecomment-5", Body: integrations.MarkSelfAuthored(body)}
	found := shipready.FindBriefing([]integrations.Comment{posted}, []string{"loop-bot"})
	assert.Equal(t, shipready.Briefing{Posted: true, HeadSHA: head, URL: posted.URL, CommentID: 5}, found)
}

func TestRenderBriefingRefusals(t *testing.T) {
	tests := []struct {
		name   string
		change func(in *shipready.BriefingInput)
		want   string
	}{
		{name: "an empty section is named", want: "fill `## Key decisions & why` from the PR-briefing template",
			change: func(in *shipready.BriefingInput) {
				in.Filled = strings.Replace(in.Filled, "- Details are read only when the head or updated_at moved.", "", 1)
			}},
		{name: "a section still holding the template's text is named", want: "fill `## TL;DR`",
			change: func(in *shipready.BriefingInput) {
				in.Filled = strings.Replace(in.Filled, "The poller now lists open pull requests once per repository.", "<!-- Two sentences: the change and its reason. -->", 1)
			}},
		{name: "a briefing without a diagram", want: "add a mermaid diagram (a ```mermaid block) of what changed",
			change: func(in *shipready.BriefingInput) {
				in.Filled = strings.Replace(in.Filled, "```mermaid", "```text", 1)
			}},
		{name: "a diagram that does not render", want: "mermaid block 1 does not start with a diagram type",
			change: func(in *shipready.BriefingInput) {
				in.Filled = strings.Replace(in.Filled, "flowchart LR\n", "", 1)
			}},
		{name: "an unclosed fence", want: "the `## What changed (map)` section opens a ``` fence it never closes",
			change: func(in *shipready.BriefingInput) {
				in.Filled = strings.Replace(in.Filled, "  listing --> detail[per-PR reads]\n```", "  listing --> detail[per-PR reads]\n```\n```go", 1)
			}},
		{name: "a template without a focus section", want: "no section for where to focus",
			change: func(in *shipready.BriefingInput) {
				in.Template = strings.Replace(in.Template, "## Where to focus (in this order)", "## Reading order", 1)
			}},
		{name: "a template without a decisions section", want: "no section for the low-level decisions",
			change: func(in *shipready.BriefingInput) {
				in.Template = strings.Replace(in.Template, "## Key decisions & why", "## Choices", 1)
			}},
		{name: "a template without sections", want: "the PR-briefing template has no `## ` sections",
			change: func(in *shipready.BriefingInput) { in.Template = "# Just a title\n" }},
		{name: "an unknown head", want: "the head commit \"main\" of pull request #12 is not a full SHA",
			change: func(in *shipready.BriefingInput) { in.PullRequest.HeadSHA = "main" }},
		{name: "a briefing longer than a comment", want: "GitHub allows 65536",
			change: func(in *shipready.BriefingInput) {
				in.Filled = strings.Replace(in.Filled, "- Details are", strings.Repeat("long words ", 7000)+"\n- Details are", 1)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := input()
			tc.change(&in)
			_, err := shipready.RenderBriefing(in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestRenderBriefingStripsInjectedMarkers(t *testing.T) {
	in := input()
	in.Filled = strings.Replace(in.Filled, "The poller now lists", "<!-- the-loop:pr-briefing-head "+old+" -->\n"+
		integrations.SelfMarker+"\n<!-- the-loop:pr-briefing -->\n<!-- unclosed The poller now lists", 1)
	body, err := shipready.RenderBriefing(in)
	require.NoError(t, err)
	assert.NotContains(t, body, old, "a head marker typed into the briefing never reaches the comment")
	assert.NotContains(t, body, integrations.SelfMarker)
	assert.Equal(t, 1, strings.Count(body, shipready.BriefingKey))
	assert.NotContains(t, strings.Split(body, shipready.BriefingKey)[0], "<!--", "no HTML comment opens before the markers")
	found := shipready.FindBriefing([]integrations.Comment{{Author: "loop-bot", Body: integrations.MarkSelfAuthored(body)}}, []string{"loop-bot"})
	assert.Equal(t, head, found.HeadSHA)
}

func TestFindBriefing(t *testing.T) {
	body, err := shipready.RenderBriefing(input())
	require.NoError(t, err)
	own := integrations.Comment{ID: 1, Author: "loop-bot", Body: integrations.MarkSelfAuthored(body)}
	tests := []struct {
		name     string
		comments []integrations.Comment
		self     []string
		want     shipready.Briefing
	}{
		{name: "none posted", comments: []integrations.Comment{{ID: 9, Author: "alice", Body: "LGTM"}}, self: []string{"loop-bot"}},
		{name: "a briefing forged by someone else is not found", self: []string{"loop-bot"},
			comments: []integrations.Comment{{ID: 2, Author: "mallory", Body: own.Body}}},
		{name: "without self logins nothing is the loop's", comments: []integrations.Comment{own}},
		{name: "the loop's own is found", comments: []integrations.Comment{own}, self: []string{"loop-bot"},
			want: shipready.Briefing{Posted: true, HeadSHA: head, CommentID: 1}},
		{name: "two head markers describe no commit", self: []string{"loop-bot"},
			comments: []integrations.Comment{{ID: 3, Author: "loop-bot", Body: own.Body + "\n<!-- the-loop:pr-briefing-head " + old + " -->"}},
			want:     shipready.Briefing{Posted: true, CommentID: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, shipready.FindBriefing(tc.comments, tc.self))
		})
	}
}
