// Command testlog reads `go test -json` on stdin and prints what plain `go
// test` prints — each package's result line, and the whole output of every
// test that failed — then the tests that were skipped with their reasons
// and the ten slowest tests. It exits 1 when a test or a package failed.
//
//	go test -json ./... | go run ./internal/testlog
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type test struct {
	pkg, name string
	elapsed   float64
}

func main() {
	failed, err := report(os.Stdin, os.Stdout, 10)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// report copies the run's results from r to w and returns whether anything
// failed.
func report(r io.Reader, w io.Writer, slowest int) (bool, error) {
	out := map[string][]string{} // output of a running test, by package and name
	skipped := map[string]string{}
	var tests []test
	failed := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // a build error or other plain line
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "PASS\n") {
					fmt.Fprint(w, e.Output)
				}
				continue
			}
			out[key] = append(out[key], e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				failed = failed || e.Action == "fail"
				continue
			}
			switch e.Action {
			case "fail":
				failed = true
				fmt.Fprint(w, strings.Join(out[key], ""))
			case "skip":
				skipped[key] = skipReason(out[key])
			}
			delete(out, key)
			if e.Action != "skip" && !strings.Contains(e.Test, "/") {
				tests = append(tests, test{e.Package, e.Test, e.Elapsed})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	if len(skipped) > 0 {
		keys := make([]string, 0, len(skipped))
		for k := range skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "\n%d tests skipped:\n", len(keys))
		for _, k := range keys {
			fmt.Fprintf(w, "  %s: %s\n", k, skipped[k])
		}
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].elapsed > tests[j].elapsed })
	if len(tests) > slowest {
		tests = tests[:slowest]
	}
	fmt.Fprintf(w, "\nthe %d slowest tests:\n", len(tests))
	for _, t := range tests {
		fmt.Fprintf(w, "  %7.2fs  %s %s\n", t.elapsed, t.pkg, t.name)
	}
	return failed, nil
}

// skipReason is the message a skipped test logged, on one line.
func skipReason(lines []string) string {
	var reason []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		reason = append(reason, l)
	}
	if len(reason) == 0 {
		return "(no reason given)"
	}
	return strings.Join(reason, " ")
}
