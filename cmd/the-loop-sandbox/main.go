// Command the-loop-sandbox is the session launcher alone: the same as
// `the-loop sandbox-exec`, in a program that links nothing else, so it
// starts in milliseconds where the-loop's own start takes tens of them.
// The poller uses it when it is installed beside the-loop.
package main

import (
	"os"

	"github.com/the-loop/the-loop/agents/sandbox"
)

func main() {
	os.Exit(sandbox.Main(os.Args[1:], os.Stdout, os.Stderr))
}
