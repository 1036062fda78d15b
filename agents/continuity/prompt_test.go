package continuity

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memClipboard records what it was given.
type memClipboard struct {
	got string
	err error
}

func (m *memClipboard) Copy(text string) (string, error) {
	if m.err != nil {
		return "", m.err
	}
	m.got = text
	return "mem", nil
}

func TestPromptMissingTask(t *testing.T) {
	s, _ := newLive(t)
	for _, task := range []string{"", "   \n "} {
		p, err := s.Prompt(PromptOptions{Task: task, Clipboard: &memClipboard{}})
		require.ErrorIs(t, err, ErrMissingTask)
		assert.Empty(t, p.Text)
	}
}

func TestPromptShape(t *testing.T) {
	s, c := newLive(t)
	populate(t, s, c)
	clip := &memClipboard{}
	p, err := s.Prompt(PromptOptions{
		Task:        "Decide whether the widget importer should accept both date formats. Then fix it.",
		Context:     []string{"Reported in https://github.com/acme/widgets/issues/7", "Parser lives in importer/parse.go"},
		Constraints: []string{"Stay inside the importer package"},
		Validation:  []string{"go test for the importer package"},
		Clipboard:   clip,
	})
	require.NoError(t, err)
	assert.Equal(t, "Decide whether the widget importer should accept both date formats", p.Title)
	assert.True(t, p.Copied)
	assert.Equal(t, "mem", p.Tool)
	assert.Equal(t, p.Text, clip.got)

	order := []string{"I'd like to talk through, and maybe take on: " + p.Title, "\nContext:\n", "\nReview first, before changing anything:\n", "\nTask:\n", "\nValidation:\n", "\nOutput:\n"}
	last := -1
	for _, marker := range order {
		i := strings.Index(p.Text, marker)
		require.GreaterOrEqual(t, i, 0, "missing %q", marker)
		assert.Greater(t, i, last, "%q is out of order", marker)
		last = i
	}
	review := p.Text[strings.Index(p.Text, "Review first"):strings.Index(p.Text, "\nTask:\n")]
	assert.Contains(t, review, "This review is yours")
	assert.Contains(t, review, "still real, stale, already solved, over-scoped")
	assert.Contains(t, review, "CI")
	assert.Contains(t, p.Text, "- Do not push, merge, close issues or PRs, label, or post comments anywhere unless explicitly asked.")
	assert.Contains(t, p.Text, "- Repository: acme/widgets on github.com")
	assert.Contains(t, p.Text, "https://github.com/acme/widgets/issues/7")
	assert.Contains(t, p.Text, "goal: ship the widget importer")
	assert.Contains(t, p.Text, "unverified until you re-check it")
	assert.Contains(t, p.Text, "Non-goals: (needs user input: what is out of scope)")
	assert.Contains(t, p.Text, "Parser lives in `parse.go`", "a repo-relative path becomes a portable name")
	assert.Contains(t, p.Rewritten, "`parse.go`")
	for _, line := range strings.Split(p.Text, "\n") {
		assert.Empty(t, FindPaths(line, s.topLevelNames()), "path left in %q", line)
	}
}

func TestPromptDropsUnportableLines(t *testing.T) {
	s, _ := newLive(t)
	p, err := s.Prompt(PromptOptions{Task: "Review the sync job for the nightly export", Context: []string{"Logs are in /var/log/sync/today.log", "It fails on Mondays"}})
	require.NoError(t, err)
	assert.NotContains(t, p.Text, "/var/log")
	assert.Contains(t, p.Text, "It fails on Mondays")
	require.Len(t, p.Omitted, 1)
	assert.Contains(t, p.Omitted[0], "<absolute path>")
	assert.NotContains(t, p.Omitted[0], "/var/log", "the note does not repeat the path")
	assert.False(t, p.Copied)
	assert.Empty(t, p.Notice, "no clipboard requested, nothing to report")

	allowed, err := s.Prompt(PromptOptions{Task: "Review the sync job for the nightly export", Context: []string{"Logs are in /var/log/sync/today.log"}, AllowPaths: true})
	require.NoError(t, err)
	assert.Contains(t, allowed.Text, "/var/log/sync/today.log", "explicitly allowed paths stay")
	assert.Empty(t, allowed.Omitted)
}

func TestPromptNoClipboard(t *testing.T) {
	s, _ := newLive(t)
	p, err := s.Prompt(PromptOptions{Task: "Check the flaky importer test", Clipboard: &SystemClipboard{GOOS: "linux", Path: t.TempDir()}})
	require.NoError(t, err)
	assert.False(t, p.Copied)
	assert.Contains(t, p.Notice, "clipboard copy unavailable")
	assert.NotEmpty(t, p.Text, "the prompt is still built so the caller can print it")

	p, err = s.Prompt(PromptOptions{Task: "Check the flaky importer test", Clipboard: &memClipboard{err: errors.New("display gone")}})
	require.NoError(t, err)
	assert.Contains(t, p.Notice, "display gone")
}

func TestPromptShortLabelRecordsInference(t *testing.T) {
	s, _ := newLive(t)
	p, err := s.Prompt(PromptOptions{Task: "importer dates"})
	require.NoError(t, err)
	assert.Contains(t, p.Inference, "live continuity record")
	assert.Contains(t, p.Text, `short label ("importer dates")`)

	bare := openSet(t, gitRepo(t, ""), &clock{now: t0})
	p, err = bare.Prompt(PromptOptions{Task: "importer dates"})
	require.NoError(t, err)
	assert.Empty(t, p.Inference)
	assert.Contains(t, p.Text, "a local checkout named `")
	assert.Contains(t, p.Text, "(needs user input: what triggered this task")
	for _, line := range strings.Split(p.Text, "\n") {
		assert.Empty(t, FindPaths(line, nil), "no path for a remote-less repo: %q", line)
	}
}

func TestPromptRefusesUnportableTask(t *testing.T) {
	s, _ := newLive(t)
	require.NoError(t, mkdir(s.Root+"/cmd"))
	tests := []struct {
		name    string
		opts    PromptOptions
		field   string
		paths   []string // tokens the error must name
		problem string   // the reason the error gives
	}{
		{"outside path beside a repo path", PromptOptions{Task: "fix the flaky test in cmd/the-loop/main.go and /home/u/x"},
			"task", []string{"cmd/the-loop/main.go", "/home/u/x"}, "absolute path outside the repository"},
		{"home path", PromptOptions{Task: "tidy the notes in ~/notes/todo.txt"}, "task", []string{"~/notes/todo.txt"}, "home-directory path outside the repository"},
		{"windows path", PromptOptions{Task: `rebuild C:\src\widgets before the demo`}, "task", []string{`C:\src\widgets`}, "Windows drive or network-share path"},
		{"sibling checkout", PromptOptions{Task: "port the fix from ../other/repo"}, "task", []string{"../other/repo"}, "relative path that leaves the repository"},
		{"nothing but a path", PromptOptions{Task: "cmd/the-loop/main.go"}, "task", []string{"cmd/the-loop/main.go"}, "nothing but paths"},
		{"title with an outside path", PromptOptions{Task: "Review the sync job", Title: "sync job in /var/log/sync"}, "title", []string{"/var/log/sync"}, "absolute path outside the repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clip := &memClipboard{}
			tt.opts.Clipboard = clip
			p, err := s.Prompt(tt.opts)
			var pe *TaskPathError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.field, pe.Field)
			for _, tok := range tt.paths {
				assert.Contains(t, err.Error(), tok, "the error names each path found")
			}
			assert.Contains(t, err.Error(), tt.problem)
			assert.Contains(t, err.Error(), "rephrase the "+tt.field+" without paths")
			assert.Contains(t, err.Error(), "--allow-paths")
			assert.Contains(t, err.Error(), "no prompt emitted")
			assert.Empty(t, p.Text, "no prompt is built")
			assert.Empty(t, clip.got, "nothing reaches the clipboard")
		})
	}
}

func TestPromptRewritesTaskPaths(t *testing.T) {
	s, _ := newLive(t)
	require.NoError(t, mkdir(s.Root+"/cmd"))
	tests := []struct {
		task, title, taskLine string
		rewritten             []string
	}{
		{"fix the flaky test in cmd/the-loop/main.go", "fix the flaky test in `main.go`", "- fix the flaky test in `main.go`", []string{"`main.go`"}},
		{"split ./continuity/brief.go. Keep the API.", "split `brief.go`", "- split `brief.go`. Keep the API.", []string{"`brief.go`"}},
		{"merge cmd/a.go into cmd/b.go today", "merge `a.go` into `b.go` today", "- merge `a.go` into `b.go` today", []string{"`a.go`", "`b.go`"}},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			p, err := s.Prompt(PromptOptions{Task: tt.task})
			require.NoError(t, err)
			assert.Equal(t, tt.title, p.Title)
			assert.True(t, strings.HasPrefix(p.Text, "I'd like to talk through, and maybe take on: "+tt.title+"\n"), "the prompt opens with the title")
			assert.Contains(t, p.Text, "\nTask:\n"+tt.taskLine+"\n", "the task stays present")
			assert.Equal(t, tt.rewritten, p.Rewritten)
			assert.Empty(t, p.Omitted)
			for _, line := range strings.Split(p.Text, "\n") {
				assert.Empty(t, FindPaths(line, s.topLevelNames()), "path left in %q", line)
			}
		})
	}

	kept, err := s.Prompt(PromptOptions{Task: "fix the flaky test in cmd/the-loop/main.go and /home/u/x", AllowPaths: true})
	require.NoError(t, err, "explicitly allowed paths stay")
	assert.Contains(t, kept.Text, "\nTask:\n- fix the flaky test in cmd/the-loop/main.go and /home/u/x\n")
}

func TestPromptOmissionNoteNamesPathKind(t *testing.T) {
	s, _ := newLive(t)
	require.NoError(t, mkdir(s.Root+"/cmd"))
	p, err := s.Prompt(PromptOptions{Task: "Review the importer", Context: []string{
		"Compare cmd/the-loop/main.go with /home/u/x",
		"Sibling fix in ../other/repo",
	}})
	require.NoError(t, err)
	require.Len(t, p.Omitted, 2)
	assert.Equal(t, `dropped a line naming an absolute path outside the repository: "- Compare <repo-relative path> with <absolute path>"`, p.Omitted[0])
	assert.Equal(t, `dropped a line naming a relative path that leaves the repository: "- Sibling fix in <relative path>"`, p.Omitted[1])
}
