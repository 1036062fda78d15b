// Package lazyre holds regular expressions that are compiled on first use
// instead of when the program starts.
//
// Go runs every package's initialisation in every process, whatever the
// process does. the-loop is one binary that starts many times: each hook,
// CLI verb and session server is a new process. A package-level
// regexp.MustCompile makes every one of them compile that expression,
// including the processes that never use it. Counted repetitions
// (`{0,127}`) and Unicode classes (`\p{L}`) make the cost larger. An
// expression whose compilation allocates more than 8 KiB is declared with
// New, so a process pays only for the ones it runs; a test of this package
// compiles every package-level regexp.MustCompile of the module and holds
// them to that.
//
// In a test binary, New compiles at once. A bad pattern then still fails
// every test of its package, as a package-level MustCompile would.
package lazyre

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// New returns a function that returns pattern compiled. The pattern is
// compiled once, on the first call. An invalid pattern panics there, as
// regexp.MustCompile does.
func New(pattern string) func() *regexp.Regexp {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	if inTest {
		re()
	}
	return re
}

// inTest reports whether this process is a test binary (go test names
// them pkg.test).
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")
