package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// MaxConnFrame bounds one JSON-RPC frame ServeConn reads.
const MaxConnFrame = 4 << 20

// ServeConn serves srv over newline-delimited JSON-RPC on one connection
// (a confined session's socket) until the connection's input ends or ctx
// is cancelled; every call runs as p. Unlike ServeStdio, any number may
// run in one process: each connection is its own session of srv. Requests
// are answered as they finish, a few at a time.
func ServeConn(ctx context.Context, srv *server.MCPServer, conn io.ReadWriter, p Principal, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx = WithPrincipal(ctx, p)
	var (
		wmu  sync.Mutex
		wg   sync.WaitGroup
		slot = make(chan struct{}, 4)
	)
	write := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			logger.Warn("the-loop mcp: encode a response", "err", err)
			return
		}
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = conn.Write(append(b, '\n'))
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	var err error
	for ctx.Err() == nil {
		var line []byte
		if line, err = readFrame(br); err != nil {
			break
		}
		if len(line) == 0 {
			continue
		}
		slot <- struct{}{}
		wg.Add(1)
		go func(msg json.RawMessage) {
			defer func() { <-slot; wg.Done() }()
			if resp := srv.HandleMessage(ctx, msg); resp != nil {
				write(resp)
			}
		}(json.RawMessage(line))
	}
	wg.Wait()
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// readFrame reads one line of at most MaxConnFrame bytes, without its end.
func readFrame(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return line, nil
			}
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > MaxConnFrame {
			return nil, errors.New("a frame larger than 4 MiB")
		}
		if !isPrefix {
			return line, nil
		}
	}
}
