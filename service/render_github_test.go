package service

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
)

// parsedCommand is a workflow command as GitHub's runner reads it
// (actions/runner ActionCommand.TryParseV2): "::name k=v,k=v::message",
// properties and message unescaped with the runner's own replacements.
type parsedCommand struct {
	name    string
	props   map[string]string
	message string
}

func parseCommand(t *testing.T, line string) parsedCommand {
	t.Helper()
	require.True(t, strings.HasPrefix(line, "::"), line)
	rest := line[2:]
	end := strings.Index(rest, "::")
	require.GreaterOrEqual(t, end, 0, "no closing :: in %q", line)
	head, msg := rest[:end], rest[end+2:]
	c := parsedCommand{props: map[string]string{}}
	name, props, _ := strings.Cut(head, " ")
	c.name = name
	if props != "" {
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			require.True(t, ok, "property without '=' in %q", line)
			c.props[k] = unescapeRunner(v, true)
		}
	}
	c.message = unescapeRunner(msg, false)
	return c
}

// unescapeRunner applies the runner's replacements in the runner's order.
func unescapeRunner(s string, property bool) string {
	s = strings.ReplaceAll(s, "%0D", "\r")
	s = strings.ReplaceAll(s, "%0A", "\n")
	if property {
		s = strings.ReplaceAll(s, "%3A", ":")
		s = strings.ReplaceAll(s, "%2C", ",")
	}
	return strings.ReplaceAll(s, "%25", "%")
}

func TestAnnotationEscapesAsGitHubDocuments(t *testing.T) {
	tests := []struct {
		name string
		a    Annotation
		want string
	}{
		{"plain", Annotation{Level: "error", File: "docs/specs/issue-2/requirements.md", Line: 10, Title: "issue-2", Message: "required section is empty: Security"},
			"::error file=docs/specs/issue-2/requirements.md,line=10,title=issue-2::required section is empty: Security"},
		{"percent, CR and LF in the message", Annotation{Level: "warning", Message: "50% done\r\nnext"},
			"::warning::50%25 done%0D%0Anext"},
		{"colon and comma pass in the message", Annotation{Level: "notice", Message: "a: b, c"},
			"::notice::a: b, c"},
		{"colon and comma escaped in properties", Annotation{Level: "error", File: "a,b:c.md", Title: "x: y, z", Message: "m"},
			"::error file=a%2Cb%3Ac.md,title=x%3A y%2C z::m"},
		{"percent escaped before anything else", Annotation{Level: "error", Title: "%0A", Message: "%3A"},
			"::error title=%250A::%253A"},
		{"no line without a file", Annotation{Level: "error", Line: 3, Message: "m"}, "::error::m"},
		{"a line needs a positive number", Annotation{Level: "error", File: "f.md", Message: "m"}, "::error file=f.md::m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.String())
		})
	}
}

func TestAnnotationsReadBackUnchangedByTheRunner(t *testing.T) {
	for _, a := range []Annotation{
		{Level: "error", File: "docs/specs/issue-1/design.md", Line: 7, Title: "issue-1 · design (block)", Message: "required artifact is missing"},
		{Level: "notice", File: "dir,with:odd%chars/a b.md", Title: "t: %25, %0A", Message: "100%\nreply `the-loop execute`: now, please\r"},
		{Level: "warning", Title: "::", Message: "%%0A%0D%25"},
	} {
		line := a.String()
		require.NotContains(t, line, "\n")
		require.NotContains(t, line, "\r")
		c := parseCommand(t, line)
		assert.Equal(t, a.Level, c.name)
		assert.Equal(t, a.File, c.props["file"])
		assert.Equal(t, a.Title, c.props["title"])
		assert.Equal(t, a.Message, c.message)
		if a.Line > 0 {
			assert.Equal(t, fmt.Sprint(a.Line), c.props["line"])
		}
	}
}

func TestFindingTextCannotInjectWorkflowCommands(t *testing.T) {
	// An artifact's text reaches findings; a finding must never start a
	// second command (::add-mask::, ::stop-commands::) or end its own early.
	evil := "looks fine\n::add-mask::hunter2\n::stop-commands::token\r::set-env name=X::y"
	line := Annotation{Level: "error", File: "a\n::warning::x", Title: "t\n::error::y", Message: evil}.String()
	assert.Equal(t, 1, strings.Count(line+"\n", "\n"), "one command, one line")
	c := parseCommand(t, line)
	assert.Equal(t, "error", c.name)
	assert.Equal(t, evil, c.message)
	assert.Equal(t, "a\n::warning::x", c.props["file"])
}

func TestSplitFindingTakesOnlyARealRepositoryPath(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs", "specs", "issue-1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "specs", "issue-1", "requirements.md"), []byte("x"), 0o644))
	tests := []struct{ msg, text, path string }{
		{runtime.Errorf("docs/specs/issue-1/requirements.md", "required section is empty: Scope").String(),
			"required section is empty: Scope", "docs/specs/issue-1/requirements.md"},
		{runtime.Errorf("docs/specs/issue-1/design.md", "required artifact is missing").String(),
			"required artifact is missing", "docs/specs/issue-1/design.md"},
		{runtime.Errorf("docs/specs/issue-1", "required artifact is missing — write one of: a.md, b.md").String(),
			"required artifact is missing — write one of: a.md, b.md", "docs/specs/issue-1"},
		{`mermaid block 1 does not start with a diagram type (found "x") (docs/specs/issue-1/requirements.md)`,
			`mermaid block 1 does not start with a diagram type (found "x")`, "docs/specs/issue-1/requirements.md"},
		{"no authorized feedback yet", "no authorized feedback yet", ""},
		{`does not start with a diagram type (found "x")`, `does not start with a diagram type (found "x")`, ""},
		{"prose in parentheses (see docs)", "prose in parentheses (see docs)", ""},
		{"outside (../etc/passwd)", "outside (../etc/passwd)", ""},
		{"absolute (/etc/passwd)", "absolute (/etc/passwd)", ""},
		{"no such directory (docs/nowhere/x.md)", "no such directory (docs/nowhere/x.md)", ""},
		{"no slash (README.md)", "no slash (README.md)", ""},
	}
	for _, tt := range tests {
		text, path := splitFinding(tt.msg, root)
		assert.Equal(t, tt.text, text, tt.msg)
		assert.Equal(t, tt.path, path, tt.msg)
	}
}

const artifact = `---
status: draft
# a YAML comment, not a heading
owner: alice
---
# Title

## Scope

text

` + "```" + `
## Risks
` + "```" + `

## Risks

> - [ ] quoted review reply, not a task
- [x] done
- [ ] write the CSV exporter
- [ ] Downloads finish in under 2 s

` + "```mermaid" + `

flowchart TD
  A[f(x)] --> B
` + "```" + `

a line that is much longer than forty characters, with spaces in it
`

func lineOf(t *testing.T, text, needle string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, needle) {
			return i + 1
		}
	}
	t.Fatalf("%q not in artifact", needle)
	return 0
}

func TestFindingLineLandsOnWhatTheValidatorReports(t *testing.T) {
	file := filepath.Join(t.TempDir(), "requirements.md")
	require.NoError(t, os.WriteFile(file, []byte(artifact), 0o644))
	mermaid := markdown.LintMermaid(markdown.MermaidBlocks(artifact))
	require.Len(t, mermaid, 1, "the fixture has one unquoted label holding a bracket")
	long := markdown.LongLines(artifact, 40)
	require.Len(t, long, 1)
	tests := []struct {
		name, finding string
		want          int
	}{
		{"a long line, as the linter numbers it", fmt.Sprintf("line %d exceeds 40 characters", long[0]), lineOf(t, artifact, "much longer")},
		{"a mermaid line, as the linter numbers it", mermaid[0], lineOf(t, artifact, "A[f(x)]")},
		{"a mermaid block", "mermaid block 1 is empty", lineOf(t, artifact, "```mermaid")},
		{"an empty section: the last heading outside fences", "required section is empty: Risks", 16},
		{"the first unticked task outside quotes", fmt.Sprintf("%d task(s) still unticked", markdown.CountUnticked(artifact)), lineOf(t, artifact, "write the CSV")},
		{"an unticked criterion", "success criterion is not ticked: downloads finish in under 2 s", lineOf(t, artifact, "Downloads finish")},
		{"a front-matter key", `front-matter owner: expected "bob", found "alice"`, 4},
		{"an unlocked artifact", "artifact is not locked — front-matter says status: draft, expected status: approved", 2},
		{"a missing section has no line", "required section is missing: Goals", 0},
		{"a heading inside front matter is not one", "required section is empty: a YAML comment, not a heading", 0},
		{"other findings have no line", "artifact could not be locked: busy", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, findingLine(file, tt.finding))
		})
	}
	assert.Zero(t, findingLine(filepath.Join(t.TempDir(), "absent.md"), "required section is empty: Risks"))
}

func TestGitHubReportAnnotatesReachedFindings(t *testing.T) {
	g, err := Graph("pdlc-work-item-loop")
	require.NoError(t, err)
	root := t.TempDir()
	dir := filepath.Join(root, "docs", "specs", "issue-9")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "requirements.md"), []byte("# R\n\n## Scope\n"), 0o644))
	first, second := g.Nodes[0].ID, g.Nodes[1].ID
	rep := runtime.Report{WorkItem: "issue-9", CurrentNode: second, Nodes: []runtime.NodeReport{
		{Node: first, Status: "pass"},
		{Node: second, Status: "block", Messages: []string{
			runtime.Errorf("docs/specs/issue-9/requirements.md", "required section is empty: Scope").String(),
			"a finding with no path",
		}},
	}}
	for _, n := range g.Nodes[2:] {
		rep.Nodes = append(rep.Nodes, runtime.NodeReport{Node: n.ID, Status: "block", Messages: []string{"not reached"}})
	}

	r := &GitHubReport{Root: root, Workdir: filepath.Dir(root), FailOn: "block"}
	var out bytes.Buffer
	require.NoError(t, r.Item(&out, rep, g))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2, "only the reached, unsatisfied node is annotated:\n%s", out.String())
	title := "issue-9 · " + second + " (block)"
	assert.Equal(t, Annotation{Level: "error", File: filepath.Base(root) + "/docs/specs/issue-9/requirements.md", Line: 3,
		Title: title, Message: "required section is empty: Scope"}.String(), lines[0], "paths are relative to the job's directory")
	assert.Equal(t, Annotation{Level: "error", Title: title, Message: "a finding with no path"}.String(), lines[1])
	assert.Equal(t, "0/1 work items satisfied, 1 failing the check (--fail-on block)", r.Tally())
}

func TestGitHubReportLevelFollowsFailOn(t *testing.T) {
	tests := []struct{ failOn, status, want string }{
		{"unmet", "wait", "error"},
		{"unmet", "block", "error"},
		{"block", "block", "error"},
		{"block", "wait", "notice"},
		{"block", "drift", "warning"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, (&GitHubReport{FailOn: tt.failOn}).level(tt.status), "%s/%s", tt.failOn, tt.status)
	}
}

func TestSummaryEscapesCellsAndStaysUnderGitHubsLimit(t *testing.T) {
	r := &GitHubReport{FailOn: "unmet", satisfied: 1, failing: 1, rows: []summaryRow{
		{item: "issue-1", node: "design", status: "block", finding: "a | b\n<script>", where: "docs/specs/issue-1/design.md:3", fails: true},
		{item: "issue-2", node: "complete", status: "ok", ok: true},
	}}
	var b bytes.Buffer
	require.NoError(t, r.Summary(&b))
	got := b.String()
	assert.Contains(t, got, "**1/2 work items satisfied** · 1 failing the check (`--fail-on unmet`)")
	assert.Contains(t, got, "| ❌ | `issue-1` | `design` | block | a \\| b &lt;script> | `docs/specs/issue-1/design.md:3` |\n")
	assert.Contains(t, got, "| ✅ | `issue-2` | `complete` | ok |  |  |\n")

	big := &GitHubReport{FailOn: "block"}
	for i := 0; i < 20000; i++ {
		big.rows = append(big.rows, summaryRow{item: fmt.Sprintf("issue-%d", i), node: "design", status: "wait", finding: strings.Repeat("x", 60)})
	}
	b.Reset()
	require.NoError(t, big.Summary(&b))
	assert.Less(t, b.Len(), 1<<20)
	assert.Regexp(t, `… and \d+ more work items: see the job log\.`, b.String())
}
