package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

// stdioRig runs transport.ServeStdio over pipes with an mcp-go client on the other
// end. stdout is teed into frames so the test can inspect every byte.
type stdioRig struct {
	client  *client.Client
	stdinW  *io.PipeWriter
	frames  *syncBuffer
	stderr  *syncBuffer
	cancel  context.CancelFunc
	done    chan error
	backend *fakeBackend
}

func startStdio(t *testing.T) *stdioRig {
	t.Helper()
	stderr := &syncBuffer{}
	backend := newFakeBackend()
	srv := NewServer(Deps{Logger: jsonLogger(stderr), Backend: backend, DefaultRepo: "/repo"}, []Tool{echoTool}, "v1")
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	frames := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeStdio(ctx, srv, stdinR, io.MultiWriter(stdoutW, frames), jsonLogger(stderr))
	}()

	c := client.NewClient(clienttransport.NewIO(stdoutR, stdinW, io.NopCloser(strings.NewReader(""))))
	startCtx, startCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer startCancel()
	require.NoError(t, c.Start(startCtx))
	_, err := c.Initialize(startCtx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "stdio-test", Version: "1"},
	}})
	require.NoError(t, err)
	rig := &stdioRig{client: c, stdinW: stdinW, frames: frames, stderr: stderr, cancel: cancel, done: done, backend: backend}
	t.Cleanup(func() {
		cancel()
		_ = stdinW.Close()
		_ = stdoutW.Close()
	})
	return rig
}

func (r *stdioRig) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("transport.ServeStdio did not return")
		return nil
	}
}

func TestServeStdioCarriesOnlyFramesOnStdout(t *testing.T) {
	rig := startStdio(t)
	ctx := context.Background()
	list, err := rig.client.ListTools(ctx, mcp.ListToolsRequest{})
	require.NoError(t, err)
	require.Len(t, list.Tools, 1)
	assert.Equal(t, "echo_item", list.Tools[0].Name)

	res := callTool(t, rig.client, "echo_item", map[string]any{"workItem": "a/b#1", "verbose": true})
	assert.False(t, res.IsError)
	assert.Equal(t, "a/b#1 by local in /repo", resultText(t, res), "stdio callers are the local principal")
	res = callTool(t, rig.client, "echo_item", map[string]any{"workItem": "a/b#1", "mode": "boom"})
	assert.True(t, res.IsError)

	require.NoError(t, rig.stdinW.Close(), "closing stdin ends the session")
	require.NoError(t, rig.wait(t))

	sc := bufio.NewScanner(strings.NewReader(rig.frames.String()))
	n := 0
	for sc.Scan() {
		var frame map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &frame), "stdout line is not JSON: %q", sc.Text())
		assert.Equal(t, "2.0", frame["jsonrpc"], "stdout line is not a JSON-RPC frame: %q", sc.Text())
		n++
	}
	assert.GreaterOrEqual(t, n, 4, "initialize, tools/list and two calls were answered")
	assert.NotContains(t, rig.frames.String(), "mcp tool call", "logs never reach stdout")
	assert.Contains(t, rig.stderr.String(), `"msg":"mcp tool call"`, "logs go to stderr")
}

// slowCall calls echo_item in slow mode for item (it waits on
// backend.release) and hands its result over; a protocol error comes back
// as an error result.
func (r *stdioRig) slowCall(item string) <-chan *mcp.CallToolResult {
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo_item"
		req.Params.Arguments = map[string]any{"workItem": item, "mode": "slow"}
		res, err := r.client.CallTool(context.Background(), req)
		if err != nil {
			res = mcp.NewToolResultError("protocol error: " + err.Error())
		}
		result <- res
	}()
	return result
}

// stillServing fails the test when ServeStdio returns within 50 ms: a call
// is in flight.
func (r *stdioRig) stillServing(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.done:
		t.Fatalf("transport.ServeStdio returned (%v) while a call was in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestServeStdioFinishesInflightCallsOnCancel(t *testing.T) {
	rig := startStdio(t)
	result := rig.slowCall("slow#1")
	require.Equal(t, "slow#1", <-rig.backend.started)

	rig.cancel() // SIGTERM/SIGINT in the binary
	rig.stillServing(t)
	close(rig.backend.release)

	res := <-result
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "slow#1", resultText(t, res), "the in-flight call finished with its own context intact")
	require.NoError(t, rig.wait(t), "a cancelled server returns nil after draining")
}

func TestServeStdioGivesUpOnStuckCallsAfterGrace(t *testing.T) {
	old := transport.StdioGrace
	transport.StdioGrace = 100 * time.Millisecond
	t.Cleanup(func() { transport.StdioGrace = old })

	rig := startStdio(t)
	rig.slowCall("stuck#1")
	<-rig.backend.started
	rig.cancel()
	require.NoError(t, rig.wait(t))
	assert.Contains(t, rig.stderr.String(), "1 request(s) unfinished")
}

// A client that writes its requests and closes stdin (a pipe: `… | the-loop
// serve`) still gets every answer: the end of input waits for the calls
// already read, as a cancel does.
func TestServeStdioAnswersCallsReadBeforeStdinEnds(t *testing.T) {
	rig := startStdio(t)
	result := rig.slowCall("slow#1")
	<-rig.backend.started
	require.NoError(t, rig.stdinW.Close(), "stdin ends while the call runs")
	rig.stillServing(t)
	close(rig.backend.release)

	res := <-result
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "slow#1", resultText(t, res), "the call read before the end of input is answered")
	require.NoError(t, rig.wait(t), "the server returns nil once it has answered")
}
