package continuity

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFindPaths(t *testing.T) {
	roots := []string{"cmd", "docs", "continuity", "go.mod"}
	tests := []struct {
		line string
		want []string // the path tokens found; nil means the line is portable
	}{
		{"See https://github.com/acme/widgets/issues/12 for the report", nil},
		{"Docs live at https://example.com/a/b/c.html#anchor", nil},
		{"Module github.com/the-loop/the-loop builds with Go 1.26", nil},
		{"Clone git@github.com:acme/widgets.git first", nil},
		{"Repository acme/widgets on branch main", nil},
		{"Run the-loop continuity brief --format json", nil},
		{"Exact error: open failed: no such file or directory", nil},
		{"Use /the-loop:execute-tasks to continue", nil},
		{"Ratios like 3/4 and and/or choices", nil},
		{"Branch origin/main is behind by two commits", nil},
		{"Released as v1.2.3 on 2026-01-02", nil},
		{"Edit main.go and README.md", nil},
		{"// comment marker", nil},
		{"Import gopkg.in/yaml.v3 for parsing", nil},
		{"Mail a@b.com about it", nil},
		{"Dates 2026/01/02 appear in logs", nil},
		{"~/x", []string{"~/x"}},
		{"Look in /home/u/x please", []string{"/home/u/x"}},
		{"Run ./cmd/x", []string{"./cmd/x"}},
		{`C:\x`, []string{`C:\x`}},
		{"Edit cmd/the-loop/main.go", []string{"cmd/the-loop/main.go"}},
		{"Notes in file:///home/u/notes.txt", []string{"file:///home/u/notes.txt"}},
		{"cd ../sibling/repo", []string{"../sibling/repo"}},
		{"Config at $HOME/.config/the-loop/config.yaml", []string{"$HOME/.config/the-loop/config.yaml"}},
		{`Open %USERPROFILE%\AppData\x`, []string{`%USERPROFILE%\AppData\x`}},
		{`Share \\server\share\x`, []string{`\\server\share\x`}},
		{"Specs under docs/specs/issue-1/", []string{"docs/specs/issue-1/"}},
		{"Pass --config=/etc/the-loop/config.yaml", []string{"/etc/the-loop/config.yaml"}},
		{"(`internal/deps/deps.go`)", []string{"internal/deps/deps.go"}},
		{".handoff/continuity/notes.md holds it", []string{".handoff/continuity/notes.md"}},
		{"Scratch files go to /tmp", []string{"/tmp"}},
		{"C:/Users/u/x", []string{"C:/Users/u/x"}},
		{`Build src\main.c`, []string{`src\main.c`}},
		{"Ask ~alice/project", []string{"~alice/project"}},
		{"Look at cmd/the-loop", []string{"cmd/the-loop"}},
		{"Checkout /Users/me/code/x.", []string{"/Users/me/code/x"}},
		{`"./continuity/brief.go", line 12`, []string{"./continuity/brief.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var got []string
			for _, h := range FindPaths(tt.line, roots) {
				got = append(got, h.Token)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestScrubLine(t *testing.T) {
	repo := filepath.FromSlash("/work/repo")
	tests := []struct {
		line      string
		want      string
		dropped   bool
		rewritten []string
	}{
		{"Fix the parser in cmd/the-loop/main.go first", "Fix the parser in `main.go` first", false, []string{"`main.go`"}},
		{"See ./continuity for the package", "See `continuity` for the package", false, []string{"`continuity`"}},
		{"The checkout at /work/repo/docs/x.md", "The checkout at `x.md`", false, []string{"`x.md`"}},
		{"Notes in /home/u/private.txt", "", true, nil},
		{"Sibling ../other/repo", "", true, nil},
		{`Windows C:\Users\u\x`, "", true, nil},
		{"Plain https://github.com/acme/widgets/pull/3", "Plain https://github.com/acme/widgets/pull/3", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got := scrubLine(tt.line, []string{"cmd"}, repo, "/home/u")
			assert.Equal(t, tt.dropped, got.dropped)
			if !tt.dropped {
				assert.Equal(t, tt.want, got.line)
				assert.Empty(t, FindPaths(got.line, []string{"cmd"}))
			}
			assert.Equal(t, tt.rewritten, got.rewritten)
		})
	}
}

func TestScrubLineExplainsEachDrop(t *testing.T) {
	repo := filepath.FromSlash("/work/repo")
	tests := []struct {
		line     string
		problems []string // why the line was dropped, one per unportable path
		redacted string   // the line as the omission note quotes it
	}{
		{"Logs in /var/log/sync/today.log", []string{"an absolute path outside the repository"}, "Logs in <absolute path>"},
		{"See ~/notes/todo.txt", []string{"a home-directory path outside the repository"}, "See <home path>"},
		{"See $HOME/notes/todo.txt", []string{"a home-directory path outside the repository"}, "See <home path>"},
		{`Open C:\Users\u\x`, []string{"a Windows drive or network-share path"}, "Open <windows path>"},
		{"Compare ../other/repo", []string{"a relative path that leaves the repository"}, "Compare <relative path>"},
		{"Run it from ./", []string{"a relative path with no portable name"}, "Run it from <relative path>"},
		{"Step into cmd/..", []string{"a repo-relative path with no portable name"}, "Step into <repo-relative path>"},
		{"Compare cmd/the-loop/main.go with /home/u/x", []string{"an absolute path outside the repository"},
			"Compare <repo-relative path> with <absolute path>"},
		{"Move /home/u/a.txt to ~/b.txt", []string{"an absolute path outside the repository", "a home-directory path outside the repository"},
			"Move <absolute path> to <home path>"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got := scrubLine(tt.line, []string{"cmd"}, repo, "/home/u")
			assert.True(t, got.dropped)
			assert.Equal(t, tt.problems, got.problems)
			assert.Equal(t, tt.redacted, got.redacted)
			assert.NotContains(t, got.note(), "/home/u", "the note never repeats a path")
			for _, p := range tt.problems {
				assert.Contains(t, got.note(), p)
			}
		})
	}
}
