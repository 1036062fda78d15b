// Command fakecritic stands in for a critic (another harness reviewing the
// work) in tests. It reads its prompt from --prompt-file, else from its
// positional arguments, else from standard input, and prints one finding per prompt line of
// the form "finding: <text>", then a summary line.
//
// Flags:
//
//	--version            print "fakecritic 1.4.2" and exit (with --hang: hang; with --fail: exit 2)
//	--mode ok            print the findings (default)
//	--mode hang          print a line, then wait to be killed
//	--mode exit-nonzero  print to stderr and exit 3
//	--mode huge          print --bytes bytes of filler, then "END"
//	--mode silent        print nothing and exit 0
//	--mode env           print the environment (sorted) and the arguments
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

func main() {
	version := flag.Bool("version", false, "print the version")
	hang := flag.Bool("hang", false, "with --version: never answer")
	fail := flag.Bool("fail", false, "with --version: exit 2")
	promptFile := flag.String("prompt-file", "", "the review assignment (default: standard input)")
	mode := flag.String("mode", "ok", "ok, hang, exit-nonzero, huge, silent or env")
	size := flag.Int("bytes", 4<<20, "bytes printed by --mode huge")
	flag.Parse()

	if *version {
		switch {
		case *hang:
			waitForever()
		case *fail:
			fmt.Fprintln(os.Stderr, "fakecritic: not signed in")
			os.Exit(2)
		}
		fmt.Println("fakecritic 1.4.2")
		return
	}
	prompt, err := readPrompt(*promptFile, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecritic:", err)
		os.Exit(1)
	}
	switch *mode {
	case "ok":
		review(prompt)
	case "hang":
		fmt.Println("reviewing…")
		waitForever()
	case "exit-nonzero":
		fmt.Fprintln(os.Stderr, "fakecritic: model quota exhausted")
		os.Exit(3)
	case "huge":
		huge(*size)
	case "silent":
	case "env":
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			fmt.Println("env:", kv)
		}
		for _, a := range os.Args {
			fmt.Println("arg:", a)
		}
		fmt.Println("prompt:", strings.TrimSpace(prompt))
	default:
		fmt.Fprintln(os.Stderr, "fakecritic: unknown mode", *mode)
		os.Exit(64)
	}
}

func readPrompt(path string, args []string) (string, error) {
	var b []byte
	var err error
	switch {
	case path != "":
		b, err = os.ReadFile(path)
	case len(args) > 0:
		b = []byte(strings.Join(args, " "))
	default:
		b, err = io.ReadAll(os.Stdin)
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", errors.New("empty prompt")
	}
	return string(b), nil
}

func review(prompt string) {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(prompt))
	for sc.Scan() {
		if f, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "finding:"); ok {
			n++
			fmt.Printf("%d. %s\n", n, strings.TrimSpace(f))
		}
	}
	fmt.Printf("findings: %d\n", n)
}

func huge(size int) {
	w := bufio.NewWriter(os.Stdout)
	line := strings.Repeat("x", 99) + "\n"
	for written := 0; written < size; written += len(line) {
		_, _ = w.WriteString(line)
	}
	_, _ = w.WriteString("END\n")
	_ = w.Flush()
}

// waitForever blocks until a signal ends the process.
func waitForever() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	<-ch
	os.Exit(143)
}
