package continuity

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Clipboard receives a prompt. Copy returns the tool it used.
type Clipboard interface {
	Copy(text string) (tool string, err error)
}

// ErrNoClipboard means no platform clipboard tool exists.
var ErrNoClipboard = errors.New("no clipboard tool found (looked for pbcopy, wl-copy, xclip, clip.exe)")

// SystemClipboard copies through the platform tool, feeding the text on
// stdin through a pipe (never through shell quoting).
type SystemClipboard struct {
	// GOOS selects the tool order; empty means runtime.GOOS.
	GOOS string
	// Path is the PATH list searched for the tools.
	Path string
	// Wayland prefers wl-copy over xclip.
	Wayland bool
}

// NewSystemClipboard returns the clipboard for this platform, searching the
// given PATH value and preferring wl-copy when a Wayland display is set.
func NewSystemClipboard(pathEnv string, getenv func(string) string) *SystemClipboard {
	return &SystemClipboard{GOOS: runtime.GOOS, Path: pathEnv, Wayland: getenv != nil && getenv("WAYLAND_DISPLAY") != ""}
}

type clipTool struct {
	name string
	args []string
}

func (c *SystemClipboard) tools() []clipTool {
	goos := c.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	wl, xc, win := clipTool{name: "wl-copy"}, clipTool{name: "xclip", args: []string{"-selection", "clipboard"}}, clipTool{name: "clip.exe"}
	switch goos {
	case "darwin":
		return []clipTool{{name: "pbcopy"}}
	case "windows":
		return []clipTool{win}
	}
	if c.Wayland {
		return []clipTool{wl, xc, win}
	}
	return []clipTool{xc, wl, win}
}

// Copy pipes text into the first tool found.
func (c *SystemClipboard) Copy(text string) (string, error) {
	for _, t := range c.tools() {
		bin := lookIn(c.Path, t.name)
		if bin == "" {
			continue
		}
		cmd := exec.Command(bin, t.args...)
		cmd.Stdin = strings.NewReader(text)
		var errOut strings.Builder
		cmd.Stderr = &errOut
		if err := cmd.Run(); err != nil {
			return t.name, fmt.Errorf("%s: %w: %s", t.name, err, strings.TrimSpace(errOut.String()))
		}
		return t.name, nil
	}
	return "", ErrNoClipboard
}

// lookIn finds an executable named name in the PATH list pathEnv.
func lookIn(pathEnv, name string) string {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && (runtime.GOOS == "windows" || st.Mode()&0o111 != 0) {
			return p
		}
	}
	return ""
}
