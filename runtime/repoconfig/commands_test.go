package repoconfig

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandsAreReadAsArgvLists(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, Path), `workflow:
  specDir: docs/specs
commands:
  lint: [golangci-lint, run]
  test: [go, test, "./..."]
  timeoutSeconds: 1200
tooling:
  lint:
    markdown: "npx markdownlint-cli2 docs/**/*.md"
`)
	r, err := Open(dir)
	require.NoError(t, err)
	c := r.Config.Commands
	assert.Equal(t, []Command{
		{Key: CommandLint, Argv: []string{"golangci-lint", "run"}},
		{Key: CommandTest, Argv: []string{"go", "test", "./..."}},
	}, c.Declared(), "declared commands run in the order lint, typeCheck, test; other keys are the agent's guidance")
	assert.Equal(t, 1200, c.Timeout())
}

func TestNoCommandsDeclared(t *testing.T) {
	for _, doc := range []string{"", "workflow:\n  specDir: docs/specs\n", "commands:\n", "commands:\n  test:\n"} {
		dir := t.TempDir()
		if doc != "" {
			writeFile(t, filepath.Join(dir, Path), doc)
		}
		r, err := Open(dir)
		require.NoError(t, err, doc)
		assert.Empty(t, r.Config.Commands.Declared(), doc)
		assert.Equal(t, DefaultCommandTimeoutSeconds, r.Config.Commands.Timeout())
	}
}

func TestBadCommandsAreRefusedNamingTheKeyAndLine(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"a string is never split", "commands:\n  test: go test ./...\n", "line 2: commands.test: give the command as a list of words"},
		{"unknown key", "commands:\n  test: [go, test]\n  build: [make]\n", "line 3: commands.build: unknown key; the commands are lint, typeCheck, test, timeoutSeconds"},
		{"not a mapping", "commands: [go, test]\n", "line 1: commands: is not a mapping"},
		{"a nested list", "commands:\n  lint:\n    - [golangci-lint]\n", "line 3: commands.lint[0]: is not a word"},
		{"empty program", "commands:\n  typeCheck: ['', vet]\n", "line 2: commands.typeCheck[0]: is empty"},
		{"bad timeout", "commands:\n  test: [go, test]\n  timeoutSeconds: -5\n", "line 3: commands.timeoutSeconds: give the seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, Path), tt.doc)
			_, err := Open(dir)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), Path+" "+tt.want)
		})
	}
}
