package shipready_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime/shipready"
)

// The plugin's operating-model skill ships the PR-briefing and
// documentation-record templates; these tests hold them to the renderer
// and the check that read what is written from them.

func pluginTemplate(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "skills", "operating-model", "templates", filepath.FromSlash(name)))
	require.NoError(t, err)
	return strings.ReplaceAll(string(data), "{{id}}", "issue-12")
}

const pluginHead = "0123456789abcdef0123456789abcdef01234567"

func TestPluginBriefingTemplateRenders(t *testing.T) {
	tmpl := pluginTemplate(t, "pr-briefing.md")
	var filled strings.Builder
	for _, line := range strings.Split(tmpl, "\n") {
		title, ok := strings.CutPrefix(line, "## ")
		if !ok {
			continue
		}
		filled.WriteString("## " + title + "\n\nWritten for pull request 12: " + title + ".\n\n")
		if strings.Contains(title, "changed") {
			filled.WriteString("```mermaid\nflowchart LR\n  poller --> listing[\"open PR listing\"]\n```\n\n")
		}
	}
	pr := integrations.PullRequest{Number: 12, HeadSHA: pluginHead}
	body, err := shipready.RenderBriefing(shipready.BriefingInput{Template: tmpl, Filled: filled.String(), PullRequest: pr})
	require.NoError(t, err)
	assert.Contains(t, body, "Where to focus")
	assert.Contains(t, body, "Decisions and why")

	_, err = shipready.RenderBriefing(shipready.BriefingInput{Template: tmpl, Filled: tmpl, PullRequest: pr})
	assert.ErrorContains(t, err, "still the template's text", "an untouched template is refused")
}

func TestPluginDocumentationTemplateMeetsTheRecordCheck(t *testing.T) {
	docsItem := func(record string) shipready.Item {
		res := shipready.Evaluate(shipready.Snapshot{Docs: shipready.DocsEvidence{Record: record, RecordFound: true, FilesRead: true}})
		for _, it := range res.Items {
			if it.Name == shipready.ItemDocs {
				return it
			}
		}
		t.Fatal("no capability-docs item")
		return shipready.Item{}
	}
	raw := pluginTemplate(t, "evidence/documentation.md")
	it := docsItem(raw)
	assert.Equal(t, shipready.Block, it.Verdict, "an untouched template is refused")
	assert.Contains(t, strings.Join(it.Messages, "\n"), "section is missing or empty")

	_, body := markdown.SplitFrontMatter(raw)
	written := strings.Replace(body, "## Capability docs\n", "## Capability docs\n\nnone affected: the change is internal.\n", 1)
	written = strings.Replace(written, "## Documentation\n", "## Documentation\n\nREADME: the new flag.\n", 1)
	it = docsItem(written)
	assert.Equal(t, shipready.Pass, it.Verdict, it.Messages)
}
