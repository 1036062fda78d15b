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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, newEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}
