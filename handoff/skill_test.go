package handoff_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/the-loop/the-loop/handoff"
)

func frontMatter(t *testing.T, path string) (map[string]string, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(raw)
	require.True(t, strings.HasPrefix(s, "---\n"), "%s starts with front matter", path)
	fm, body, ok := strings.Cut(s[4:], "\n---\n")
	require.True(t, ok, "%s front matter is closed", path)
	out := map[string]string{}
	require.NoError(t, yaml.Unmarshal([]byte(fm), &out))
	return out, body
}

func TestSkillFrontMatter(t *testing.T) {
	fm, body := frontMatter(t, "../skills/conversation-handoff/SKILL.md")
	assert.Equal(t, "conversation-handoff", fm["name"], "distinct from the /the-loop:handoff command")
	assert.Regexp(t, `^[a-z0-9-]{1,64}$`, fm["name"])
	assert.NotEmpty(t, fm["description"])
	assert.LessOrEqual(t, len(fm["description"]), 1024, "uploaded skills cap the description")
	assert.Len(t, fm, 2, "only name and description, so the file loads unchanged on every surface")

	// The post order is fixed.
	order := []string{"**The issue.**", "**The Jira copy**", "**The spec branch and draft PR**", "**The spec-chain artifact**", "**The handoff record**", "**Arming**"}
	last := -1
	for _, step := range order {
		i := strings.Index(body, step)
		require.GreaterOrEqual(t, i, 0, "skill lacks %s", step)
		assert.Greater(t, i, last, "%s is out of order", step)
		last = i
	}
	// The transport order is fixed.
	last = -1
	for _, tr := range []string{"**the loop's MCP tools**", "**the `the-loop` CLI**", "**GitHub or Atlassian connector**", "**`gh`**"} {
		i := strings.Index(body, tr)
		require.GreaterOrEqual(t, i, 0, "skill lacks %s", tr)
		assert.Greater(t, i, last, "%s is out of order", tr)
		last = i
	}
	for _, ending := range []string{"**Run now.**", "**Queue it.**", "**Continue in this session.**", "**Just file it.**"} {
		assert.True(t, strings.Contains(body, ending), "skill lacks ending %s", ending)
	}
	assert.True(t, strings.Contains(body, `^[\w.-]+/[\w.-]+$`))
}

func TestCommandFrontMatter(t *testing.T) {
	fm, body := frontMatter(t, "../plugin/commands/handoff.md")
	assert.NotEmpty(t, fm["description"])
	assert.True(t, strings.Contains(body, "$ARGUMENTS"))
	assert.True(t, strings.Contains(body, "`conversation-handoff` skill"))
}

// TestSkillWireExampleParses checks the format the skill teaches for
// surfaces without the CLI is the one the parser reads.
func TestSkillWireExampleParses(t *testing.T) {
	_, body := frontMatter(t, "../skills/conversation-handoff/SKILL.md")
	_, rest, ok := strings.Cut(body, "````text\n")
	require.True(t, ok)
	example, _, ok := strings.Cut(rest, "\n````\n")
	require.True(t, ok)
	files := map[string]string{handoff.Brainstorm: "# Brainstorm\n", handoff.Requirements: "# Requirements\n\n```go\nx\n```\n"}
	for _, name := range []string{handoff.Brainstorm, handoff.Requirements} {
		example = strings.Replace(example, "- "+name+" sha256:<64 lowercase hex>", "- "+name+" sha256:"+handoff.HashLF([]byte(files[name])), 1)
		example += "\n<details><summary>" + name + "</summary>\n\n````markdown\n" + files[name] + "````\n\n</details>\n"
	}
	rec, err := handoff.Parse(example)
	require.NoError(t, err)
	assert.Equal(t, files, rec.Files)

	// The skill's stage-to-entry list matches the stage table.
	pairs := regexp.MustCompile("`([a-z-]+)` →\\s+`([a-z-]+)`").FindAllStringSubmatch(body, -1)
	require.Len(t, pairs, 4, "the skill lists the four stage entries")
	for _, m := range pairs {
		var arts []handoff.Artifact
		if m[2] == handoff.NodeDesignApproval {
			arts = []handoff.Artifact{{Name: handoff.TestingPlan}}
		}
		got, err := handoff.StageEntry(m[1], arts)
		require.NoError(t, err, m[0])
		assert.Equal(t, m[2], got, m[0])
	}
}
