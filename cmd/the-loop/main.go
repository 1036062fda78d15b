// Command the-loop is the process engine's single binary: check, graph,
// gate, handoff, ticket, continuity, poll and serve are its subcommands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		// The session launcher: before the CLI's config, logger and signal
		// handling, which it has no use for.
		os.Exit(sandboxExec(os.Args[2:], os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, newEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}
