package continuity

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTool writes an executable that saves its stdin and arguments.
func fakeTool(t *testing.T, dir, name, exit string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell-script clipboard fakes need a POSIX shell")
	}
	out := filepath.Join(dir, name+".out")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" > '" + out + ".args'\ncat > '" + out + "'\nexit " + exit + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	return out
}

func TestSystemClipboardPipesText(t *testing.T) {
	dir := t.TempDir()
	out := fakeTool(t, dir, "xclip", "0")
	text := "it's \"quoted\" $(rm -rf /) `whoami` \\ done\nline two — ünïcode\n"
	c := &SystemClipboard{GOOS: "linux", Path: dir}
	tool, err := c.Copy(text)
	require.NoError(t, err)
	assert.Equal(t, "xclip", tool)
	assert.Equal(t, text, readFile(t, out), "the text arrives byte for byte through the pipe")
	assert.Equal(t, "-selection clipboard\n", readFile(t, out+".args"))
}

func TestSystemClipboardChoosesPlatformTool(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pbcopy", "wl-copy", "xclip", "clip.exe"} {
		fakeTool(t, dir, name, "0")
	}
	tests := []struct {
		c    SystemClipboard
		want string
	}{
		{SystemClipboard{GOOS: "darwin", Path: dir}, "pbcopy"},
		{SystemClipboard{GOOS: "linux", Path: dir}, "xclip"},
		{SystemClipboard{GOOS: "linux", Path: dir, Wayland: true}, "wl-copy"},
		{SystemClipboard{GOOS: "windows", Path: dir}, "clip.exe"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			tool, err := tt.c.Copy("x")
			require.NoError(t, err)
			assert.Equal(t, tt.want, tool)
		})
	}

	only := t.TempDir()
	fakeTool(t, only, "clip.exe", "0")
	tool, err := (&SystemClipboard{GOOS: "linux", Path: only}).Copy("x")
	require.NoError(t, err)
	assert.Equal(t, "clip.exe", tool, "WSL falls back to clip.exe")
}

func TestSystemClipboardUnavailable(t *testing.T) {
	_, err := (&SystemClipboard{GOOS: "linux", Path: t.TempDir()}).Copy("x")
	require.ErrorIs(t, err, ErrNoClipboard)
	_, err = NewSystemClipboard("", func(string) string { return "" }).Copy("x")
	require.ErrorIs(t, err, ErrNoClipboard)
}

func TestSystemClipboardToolFails(t *testing.T) {
	dir := t.TempDir()
	fakeTool(t, dir, "xclip", "3")
	tool, err := (&SystemClipboard{GOOS: "linux", Path: dir}).Copy("x")
	require.Error(t, err)
	assert.Equal(t, "xclip", tool)
	assert.Contains(t, err.Error(), "exit status 3")
}
