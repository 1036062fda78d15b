package transport

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// StdioGrace bounds how long ServeStdio, cancelled or at the end of stdin,
// waits for in-flight requests before it stops anyway. ServeStdio reads it
// once, when it starts.
var StdioGrace = 25 * time.Second

// stdioConcurrency bounds the requests ServeStdio runs at once; past it,
// reading waits for one to finish.
const stdioConcurrency = 16

// ServeStdio serves srv over newline-delimited JSON-RPC on stdin/stdout
// until stdin ends or ctx is cancelled. stdout carries protocol frames
// only; the transport's diagnostics go to logger. Every call runs as the
// local principal. On cancellation, or at the end of stdin, it stops
// reading, lets the requests already read finish (bounded by StdioGrace,
// after which their context is cancelled) and returns nil; a client that
// writes its requests and closes stdin gets every answer.
func ServeStdio(ctx context.Context, srv *server.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "mcp stdio")
	grace := StdioGrace // read once: the server's goroutines never read the variable
	ls := newLineServer(srv, stdout, stdioConcurrency, ctx.Done(), logger, "stdio")

	// Requests run under a context ctx's cancellation does not reach: the
	// ones already read finish; only the end of the grace period stops them.
	base := WithPrincipal(context.WithoutCancel(ctx), Principal{Subject: "local", Method: "stdio"})
	reqCtx, cancelRequests := context.WithCancel(base)
	defer cancelRequests()
	reqCtx, closeSession, err := ls.open(reqCtx)
	if err != nil {
		return fmt.Errorf("mcp stdio: %w", err)
	}
	defer closeSession()

	stop := make(chan struct{})
	defer close(stop)
	frames, readErr := readFrames(stdin, 0, stop)
	for {
		select {
		case line, ok := <-frames:
			if ok {
				ls.dispatch(reqCtx, line)
				continue
			}
			ls.finish(grace, "the end of stdin")
			if *readErr != nil {
				return fmt.Errorf("mcp stdio: read stdin: %w", *readErr)
			}
			return nil
		case <-ctx.Done():
			ls.finish(grace, "shutdown")
			return nil
		}
	}
}
