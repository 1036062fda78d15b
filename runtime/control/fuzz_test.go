package control

import (
	"strings"
	"testing"

	"github.com/the-loop/the-loop/config"
)

// FuzzCommand: no input yields a command unless the raw comment holds that
// command's keyword on a line of its own; a command is never ambiguous and
// is the only command found.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"the-loop start", "do NOT the-loop start", "> the-loop start", "`the-loop stop`",
		"the-loop execute\n- [ ] design", "<!--\nthe-loop start\n-->", "the-loop start\nthe-loop stop",
		"hi\n\nTHE-LOOP PAUSE.", "~~the-loop start~~", "    the-loop start", "the-loop do"} {
		f.Add(s)
	}
	p := New(config.Default())
	f.Fuzz(func(t *testing.T, body string) {
		res := p.Parse(body)
		if res.Command == None {
			return
		}
		if res.Ambiguous || len(res.Found) != 1 || res.Found[0] != res.Command {
			t.Fatalf("%q: command %q with found %v, ambiguous %v", body, res.Command, res.Found, res.Ambiguous)
		}
		kw := lowerASCII(config.Default().Keyword(string(res.Command)))
		onALine := false
		for _, line := range strings.Split(strings.ReplaceAll(body, "\r", "\n"), "\n") {
			if strings.TrimSuffix(strings.TrimSpace(lowerASCII(line)), ".") == kw {
				onALine = true
			}
		}
		if !onALine {
			t.Fatalf("%q yields %q but no line of it is the keyword", body, res.Command)
		}
	})
}
