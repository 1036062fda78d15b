package lazyre

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompiledOnceAndMatches(t *testing.T) {
	re := New(`^[a-z][a-z0-9-]{0,63}$`)
	assert.Same(t, re(), re(), "compiled once")
	assert.True(t, re().MatchString("design-approval"))
	assert.False(t, re().MatchString("Design"))
	assert.False(t, re().MatchString("a"+strings.Repeat("b", 64)))
}

func TestABadPatternFailsATestBinaryAtOnce(t *testing.T) {
	require.True(t, inTest, "go test names its binaries pkg.test")
	assert.PanicsWithValue(t, "regexp: Compile(`(`): error parsing regexp: missing closing ): `(`", func() { New(`(`) })
}

// TestHelperOutsideATest is run by TestAProgramCompilesOnFirstUse as a
// program that is not a test binary (argv[0] without .test).
func TestHelperOutsideATest(t *testing.T) {
	if os.Getenv("LAZYRE_CHILD") == "" {
		t.Skip("run by TestAProgramCompilesOnFirstUse")
	}
	if inTest {
		t.Fatal("the child should not see itself as a test binary")
	}
	re := New(`(`) // not compiled yet: no panic
	os.Stdout.WriteString("declared\n")
	defer func() { os.Stdout.WriteString("first use: " + fmt.Sprint(recover()) + "\n") }()
	re()
}

func TestAProgramCompilesOnFirstUse(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := &exec.Cmd{Path: self, Args: []string{"the-loop", "-test.run=^TestHelperOutsideATest$", "-test.v"},
		Env: append(os.Environ(), "LAZYRE_CHILD=1")}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "declared\nfirst use: regexp: Compile(`(`): error parsing regexp: missing closing ): `(`\n", "New does not compile; the first call does (and panics on a bad pattern)")
}
