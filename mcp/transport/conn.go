package transport

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"
)

// MaxConnFrame bounds one JSON-RPC frame ServeConn reads.
const MaxConnFrame = 4 << 20

// connConcurrency bounds the requests one connection runs at once.
const connConcurrency = 4

// ServeConn serves srv over newline-delimited JSON-RPC on one connection
// (a confined session's socket) until the connection's input ends or ctx
// is cancelled; every call runs as p. Unlike ServeStdio, any number may
// run in one process: each connection is its own session of srv. Requests
// are answered as they finish, a few at a time; ServeConn returns once
// the requests it read are answered. A frame over MaxConnFrame ends the
// connection with an error.
func ServeConn(ctx context.Context, srv *server.MCPServer, conn io.ReadWriter, p Principal, logger *slog.Logger) error {
	ls := newLineServer(srv, conn, connConcurrency, ctx.Done(), logger, "conn")
	reqCtx, closeSession, err := ls.open(WithPrincipal(ctx, p))
	if err != nil {
		return fmt.Errorf("mcp conn: %w", err)
	}
	defer closeSession()
	stop := make(chan struct{})
	defer close(stop)
	frames, readErr := readFrames(conn, MaxConnFrame, stop)
	for {
		select {
		case line, ok := <-frames:
			if ok {
				ls.dispatch(reqCtx, line)
				continue
			}
		case <-ctx.Done():
		}
		ls.running.Wait()
		if ctx.Err() == nil && *readErr != nil {
			return fmt.Errorf("mcp conn: %w", *readErr)
		}
		return nil
	}
}
