package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// ErrRefused is a hello the poller refused.
var ErrRefused = errors.New("the loop refused this session's capability")

// Dial connects to a session's socket and presents its capability.
func Dial(ctx context.Context, socket, capability string) (net.Conn, *bufio.Reader, error) {
	var d net.Dialer
	addr, done, err := shortPath(socket)
	if err != nil {
		return nil, nil, fmt.Errorf("reach the loop through %s: %w", socket, err)
	}
	conn, err := d.DialContext(ctx, "unix", addr)
	done()
	if err != nil {
		return nil, nil, fmt.Errorf("reach the loop through %s: %w (the session may have ended)", socket, err)
	}
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	if _, err := io.WriteString(conn, Hello+" "+capability+"\n"); err != nil {
		_ = conn.Close()
		return nil, nil, fmt.Errorf("reach the loop through %s: %w", socket, err)
	}
	br := bufio.NewReader(conn)
	line, err := readLine(br, 400)
	if err != nil {
		_ = conn.Close()
		return nil, nil, fmt.Errorf("reach the loop through %s: %w", socket, err)
	}
	if line != "ok" {
		_ = conn.Close()
		return nil, nil, fmt.Errorf("%w: %s", ErrRefused, strings.TrimPrefix(line, "refused: "))
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, br, nil
}

// Pipe carries an MCP stdio session (in, out) over the session's socket
// until in ends and the poller has answered.
func Pipe(ctx context.Context, socket, capability string, in io.Reader, out io.Writer) error {
	conn, br, err := Dial(ctx, socket, capability)
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, br)
		done <- err
	}()
	_, err = io.Copy(conn, in)
	if uc, ok := conn.(*net.UnixConn); ok {
		_ = uc.CloseWrite()
	}
	select {
	case werr := <-done:
		return errors.Join(err, werr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Call calls one tool through the session's socket and returns its result.
func Call(ctx context.Context, socket, capability, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	conn, br, err := Dial(ctx, socket, capability)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = conn.Write(append(b, '\n'))
		return err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "the-loop", "version": "cli"}}}); err != nil {
		return nil, err
	}
	if _, err := readResponse(br, 1); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}); err != nil {
		return nil, err
	}
	raw, err := readResponse(br, 2)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%s: the loop's answer: %w", tool, err)
	}
	return &res, nil
}

// readResponse reads frames until the response with id, returning its
// result (or its error).
func readResponse(br *bufio.Reader, id int) (json.RawMessage, error) {
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("the loop's answer: %w", err)
		}
		var frame struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &frame) != nil || frame.ID == nil || *frame.ID != id {
			continue // a notification, or not ours
		}
		if frame.Error != nil {
			return nil, errors.New(frame.Error.Message)
		}
		return frame.Result, nil
	}
}
