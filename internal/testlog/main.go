// Command testlog reads `go test -json` on stdin, or from each file it is
// given (read side by side, line by line: two `go test` runs at once), and
// prints what plain `go test` prints — each package's result line, and the
// whole output of every test that failed — then the tests that were
// skipped with their reasons, the ten slowest tests and the ten slowest
// packages. It exits 1 when a test or a package failed.
//
//	go test -json ./... | go run ./internal/testlog
//	go run ./internal/testlog <(go test -json ./a/...) <(go test -race -json ./b/...)
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
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
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		var files []io.Reader
		for _, name := range os.Args[1:] {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "testlog:", err)
				os.Exit(2)
			}
			defer f.Close()
			files = append(files, f)
		}
		in = merge(files...)
	}
	failed, err := report(in, os.Stdout, 10)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// merge reads every reader at once and returns their lines as they come,
// each line whole.
func merge(rs ...io.Reader) io.Reader {
	pr, pw := io.Pipe()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := bufio.NewReader(r)
			for {
				line, err := br.ReadBytes('\n')
				if len(line) > 0 {
					if line[len(line)-1] != '\n' {
						line = append(line, '\n')
					}
					mu.Lock()
					_, werr := pw.Write(line)
					mu.Unlock()
					if werr != nil {
						return
					}
				}
				if err != nil {
					if err != io.EOF {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
					}
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		pw.CloseWithError(firstErr)
	}()
	return pr
}

// report copies the run's results from r to w and returns whether anything
// failed.
func report(r io.Reader, w io.Writer, slowest int) (bool, error) {
	out := map[string][]string{} // output of a running test, by package and name
	skipped := map[string]string{}
	var tests, packages []test
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
		case "build-output": // the compiler's messages for a package that did not build
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
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
				if e.Action != "skip" {
					packages = append(packages, test{pkg: e.Package, elapsed: e.Elapsed})
				}
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
	printSlowest(w, "tests", tests, slowest)
	printSlowest(w, "packages", packages, slowest)
	return failed, nil
}

// printSlowest prints the n slowest of ts, slowest first.
func printSlowest(w io.Writer, what string, ts []test, n int) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].elapsed > ts[j].elapsed })
	if len(ts) > n {
		ts = ts[:n]
	}
	fmt.Fprintf(w, "\nthe %d slowest %s:\n", len(ts), what)
	for _, t := range ts {
		fmt.Fprintf(w, "  %7.2fs  %s\n", t.elapsed, strings.TrimSpace(t.pkg+" "+t.name))
	}
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
