package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const run = `{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestSlow"}
{"Action":"output","Package":"example.com/a","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}
{"Action":"output","Package":"example.com/a","Test":"TestSlow","Output":"--- PASS: TestSlow (3.50s)\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestSlow","Elapsed":3.5}
{"Action":"run","Package":"example.com/a","Test":"TestBroken"}
{"Action":"output","Package":"example.com/a","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}
{"Action":"output","Package":"example.com/a","Test":"TestBroken","Output":"    a_test.go:9: want 2, got 3\n"}
{"Action":"output","Package":"example.com/a","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.01s)\n"}
{"Action":"fail","Package":"example.com/a","Test":"TestBroken","Elapsed":0.01}
{"Action":"run","Package":"example.com/a","Test":"TestPostgres"}
{"Action":"output","Package":"example.com/a","Test":"TestPostgres","Output":"=== RUN   TestPostgres\n"}
{"Action":"output","Package":"example.com/a","Test":"TestPostgres","Output":"    pg_test.go:5: no PostgreSQL: LOOP_TEST_PG is unset\n"}
{"Action":"output","Package":"example.com/a","Test":"TestPostgres","Output":"--- SKIP: TestPostgres (0.00s)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestPostgres","Elapsed":0}
{"Action":"output","Package":"example.com/a","Output":"FAIL\n"}
{"Action":"output","Package":"example.com/a","Output":"FAIL\texample.com/a\t3.6s\n"}
{"Action":"fail","Package":"example.com/a","Elapsed":3.6}
{"Action":"run","Package":"example.com/b","Test":"TestQuick"}
{"Action":"pass","Package":"example.com/b","Test":"TestQuick","Elapsed":0.2}
{"Action":"run","Package":"example.com/b","Test":"TestQuick/sub"}
{"Action":"pass","Package":"example.com/b","Test":"TestQuick/sub","Elapsed":0.1}
{"Action":"output","Package":"example.com/b","Output":"ok  \texample.com/b\t0.3s\n"}
{"Action":"pass","Package":"example.com/b","Elapsed":0.3}
`

func TestTheReportIsWhatPlainGoTestPrintsThenSkipsAndTheSlowest(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(run), &out, 10)
	require.NoError(t, err)
	assert.True(t, failed)
	got := out.String()
	assert.Contains(t, got, "    a_test.go:9: want 2, got 3\n--- FAIL: TestBroken (0.01s)\n", "a failed test's whole output")
	assert.NotContains(t, got, "--- PASS: TestSlow", "a passing test's output is not repeated")
	assert.Contains(t, got, "FAIL\texample.com/a\t3.6s\nok  \texample.com/b\t0.3s\n", "each package's line")
	assert.Contains(t, got, "1 tests skipped:\n  example.com/a TestPostgres: pg_test.go:5: no PostgreSQL: LOOP_TEST_PG is unset\n")
	assert.Contains(t, got, "the 3 slowest tests:\n     3.50s  example.com/a TestSlow\n     0.20s  example.com/b TestQuick\n     0.01s  example.com/a TestBroken\n",
		"top-level tests only, slowest first")
	assert.Contains(t, got, "the 2 slowest packages:\n     3.60s  example.com/a\n     0.30s  example.com/b\n")
}

// Two runs at once (plain and -race) are read side by side: every line of
// each reaches the report whole, whichever run writes first.
func TestTwoRunsAreReadLineByLine(t *testing.T) {
	lines := strings.SplitAfter(run, "\n")
	var a, b strings.Builder
	for i, l := range lines {
		if strings.Contains(l, "example.com/b") {
			b.WriteString(l)
		} else if i < len(lines)-1 || l != "" {
			a.WriteString(l)
		}
	}
	var out strings.Builder
	failed, err := report(merge(strings.NewReader(a.String()), strings.NewReader(strings.TrimSuffix(b.String(), "\n"))), &out, 10)
	require.NoError(t, err)
	assert.True(t, failed)
	got := out.String()
	assert.Contains(t, got, "    a_test.go:9: want 2, got 3\n--- FAIL: TestBroken (0.01s)\n")
	assert.Contains(t, got, "ok  \texample.com/b\t0.3s\n")
	assert.Contains(t, got, "the 3 slowest tests:\n     3.50s  example.com/a TestSlow\n     0.20s  example.com/b TestQuick\n")
	assert.Contains(t, got, "the 2 slowest packages:\n     3.60s  example.com/a\n     0.30s  example.com/b\n", "a last line without its newline is read too")
}

func TestAPassingRunIsNotAFailure(t *testing.T) {
	failed, err := report(strings.NewReader(`{"Action":"pass","Package":"example.com/b","Test":"TestQuick","Elapsed":0.2}
{"Action":"pass","Package":"example.com/b","Elapsed":0.3}
`), &strings.Builder{}, 10)
	require.NoError(t, err)
	assert.False(t, failed)
}

// A package that does not build: the compiler's messages are printed (go
// test -json reports them as build-output) and the run fails.
func TestABuildFailureIsPrintedAndFails(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(`{"ImportPath":"x [x.test]","Action":"build-output","Output":"# x [x.test]\n"}
{"ImportPath":"x [x.test]","Action":"build-output","Output":"./x.go:3:12: undefined: undefined\n"}
{"ImportPath":"x [x.test]","Action":"build-fail"}
{"Action":"start","Package":"x"}
{"Action":"output","Package":"x","Output":"FAIL\tx [build failed]\n"}
{"Action":"fail","Package":"x","Elapsed":0,"FailedBuild":"x [x.test]"}
`), &out, 10)
	require.NoError(t, err)
	assert.True(t, failed)
	assert.Contains(t, out.String(), "# x [x.test]\n./x.go:3:12: undefined: undefined\nFAIL\tx [build failed]\n")
}
