package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
)

// maxInitBytes bounds what one package may allocate before main runs:
// every command pays it, `check` on one item included, so a table built at
// start-up belongs behind its first use (sync.OnceValue). The largest
// today is runtime/classify (about 160 KB); a third-party schema compiler
// built 1.7 MB here until third_party/jsonschema deferred it.
const maxInitBytes = 256 << 10

// TestNoPackageBuildsMuchAtStartUp reads the runtime's own init trace of
// `the-loop version` (GODEBUG=inittrace=1: bytes allocated by each
// package's initialisation, a count, not a timing) and names any package
// over the bound.
func TestNoPackageBuildsMuchAtStartUp(t *testing.T) {
	bin := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var total int64
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, D ms clock, BYTES bytes, ALLOCS allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		n, err := strconv.ParseInt(f[7], 10, 64)
		require.NoError(t, err, line)
		total += n
		assert.LessOrEqual(t, n, int64(maxInitBytes), "%s allocates %d bytes at start-up; build it on first use instead", f[1], n)
	}
	require.Positive(t, seen, "no init trace in:\n%s", out)
	t.Logf("%d packages allocate %d bytes at start-up", seen, total)
}
