package sessionenv

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestTheSessionIsFoundInTheEnvironmentOrAnAncestors(t *testing.T) {
	proc := fstest.MapFS{
		"40/stat":    {Data: []byte("40 (the-loop) S 30 40 40 0")},
		"40/environ": {Data: []byte("PATH=/bin\x00")},
		"30/stat":    {Data: []byte("30 (sh (evil) x) S 20 30 30 0")},
		"30/environ": {Data: []byte("HOME=/h\x00" + ID + "=s-abc\x00")},
		"20/stat":    {Data: []byte("20 (harness) S 1 20 20 0")},
	}
	tests := []struct {
		name   string
		getenv map[string]string
		pid    int
		proc   fstest.MapFS
		want   string
	}{
		{"its own variable", map[string]string{ID: "s-own"}, 40, proc, "s-own"},
		{"unset here, set in a grandparent whose name has parentheses", nil, 40, proc, "s-abc"},
		{"no ancestor carries it", nil, 20, proc, ""},
		{"an unreadable ancestor ends nothing", nil, 40, fstest.MapFS{"40/stat": proc["40/stat"], "30/stat": proc["30/stat"], "20/stat": proc["20/stat"]}, ""},
		{"an empty value is no session", map[string]string{ID: ""}, 20, proc, ""},
		{"a cycle is bounded", nil, 50, fstest.MapFS{"50/stat": {Data: []byte("50 (x) S 50 0")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := sessionOf(env(tt.getenv), tt.pid, tt.proc)
			assert.Equal(t, tt.want, id)
			assert.Equal(t, tt.want != "", ok)
		})
	}
}

// A real child whose own environment lacks the variable finds it in its
// parent shell's.
func TestAChildThatUnsetsTheVariableIsStillInside(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc: only the environment is read here")
	}
	if os.Getenv("SESSIONENV_CHILD") == "1" {
		id, ok := SessionOfProcess(os.Getenv)
		os.Stdout.WriteString(strconv.FormatBool(ok) + " " + id)
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `env -u `+ID+` SESSIONENV_CHILD=1 "$0" -test.run '^TestAChildThatUnsetsTheVariableIsStillInside$'; exit $?`, self)
	cmd.Env = append(os.Environ(), ID+"=s-parent")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	assert.True(t, strings.HasPrefix(string(out), "true s-parent"), "%s", out)
}
