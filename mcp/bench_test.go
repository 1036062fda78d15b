package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/service"
)

// Benchmarks of the MCP surface: check on one work item against a no-op
// tool on the same server (the floor: transport, JSON-RPC, argument check
// and call middleware, no core work), over stdio and over HTTP, plus HTTP
// throughput with 16 concurrent clients. bench/mcp.sh runs them and prints
// the ratios. Each latency benchmark reports p50 and p99 in microseconds.

// noopTool exists only in this test build: it takes the same argument as
// check and does nothing, so check minus noop is the core's own cost.
var noopTool = Tool{
	Def: NewToolDef("noop", Annotations{Title: "No-op (benchmark floor)", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Benchmark floor: answers at once."),
		mcp.WithString(ArgWorkItem, mcp.Description("Ignored.")),
	),
	Handler: func(Deps) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}
	},
}

// benchArgs name the work item check evaluates: issue-2, blocked at
// requirements-definition, with a stored state record.
var benchArgs = map[string]any{ArgWorkItem: "issue-2"}

// benchServer is the server the benchmarks call: every shipped tool plus
// noop, bound to the real core over a copy of the fixture. The core's
// state store is open, as in a server that has already taken a claim (a
// claim on issue-3, a human gate, is refused and writes nothing), so check
// reads the stored state the way a long-running server does.
func benchServer(b *testing.B) *server.MCPServer {
	b.Helper()
	// The store logs its migration through the default logger; keep the
	// benchmark lines clean.
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.Cleanup(func() { slog.SetDefault(prev) })
	repo := copyFixture(b)
	svc := newLoopService(b, repo)
	_, err := svc.Complete(context.Background(), service.CompleteRequest{ItemRequest: service.ItemRequest{WorkItem: "issue-3"}})
	require.NoError(b, err)
	return NewServer(Deps{Backend: svc, DefaultRepo: repo}, append(AllTools(), noopTool), "bench")
}

func benchStdioClient(b *testing.B) *client.Client {
	b.Helper()
	srv := benchServer(b)
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = transport.ServeStdio(ctx, srv, stdinR, stdoutW, nil)
	}()
	c := client.NewClient(clienttransport.NewIO(stdoutR, stdinW, io.NopCloser(strings.NewReader(""))))
	initClient(b, c)
	b.Cleanup(func() {
		cancel()
		_ = stdinW.Close()
		_ = stdoutW.Close()
		<-done
	})
	return c
}

func benchHTTPURL(b *testing.B) string {
	b.Helper()
	return loopHTTPWith(b, benchServer(b))
}

func benchHTTPClient(b *testing.B, url string) *client.Client {
	b.Helper()
	tr, err := clienttransport.NewStreamableHTTP(url, clienttransport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken}))
	require.NoError(b, err)
	c := client.NewClient(tr)
	initClient(b, c)
	return c
}

func initClient(b *testing.B, c *client.Client) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(b, c.Start(ctx))
	_, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "bench", Version: "1"},
	}})
	require.NoError(b, err)
	b.Cleanup(func() { _ = c.Close() })
}

// callOnce makes one call; any protocol error or error result is an error.
func callOnce(c *client.Client, tool string) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = benchArgs
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: error result %v", tool, res.Content)
	}
	return nil
}

// callOK makes one call from the benchmark goroutine and stops the
// benchmark on failure.
func callOK(b *testing.B, c *client.Client, tool string) {
	if err := callOnce(c, tool); err != nil {
		b.Fatal(err)
	}
}

// benchLatency calls tool b.N times in sequence and reports p50 and p99.
func benchLatency(b *testing.B, c *client.Client, tool string) {
	callOK(b, c, tool) // warm: graph compiled, files cached
	lat := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		callOK(b, c, tool)
		lat[i] = time.Since(start)
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	at := func(q float64) float64 {
		i := int(q * float64(len(lat)-1))
		return float64(lat[i].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

func BenchmarkCheckStdio(b *testing.B) { benchLatency(b, benchStdioClient(b), "check") }

func BenchmarkNoopStdio(b *testing.B) { benchLatency(b, benchStdioClient(b), "noop") }

func BenchmarkCheckHTTP(b *testing.B) {
	benchLatency(b, benchHTTPClient(b, benchHTTPURL(b)), "check")
}

func BenchmarkNoopHTTP(b *testing.B) {
	benchLatency(b, benchHTTPClient(b, benchHTTPURL(b)), "noop")
}

// throughputClients is the number of concurrent HTTP clients.
const throughputClients = 16

// BenchmarkHTTPThroughput16 spreads b.N check calls over 16 concurrent
// HTTP clients and reports calls per second, with per-call p50 and p99.
func BenchmarkHTTPThroughput16(b *testing.B) { benchThroughput(b, "check") }

// BenchmarkNoopHTTPThroughput16 is the same with the no-op tool: the
// transport's own ceiling on this machine.
func BenchmarkNoopHTTPThroughput16(b *testing.B) { benchThroughput(b, "noop") }

func benchThroughput(b *testing.B, tool string) {
	url := benchHTTPURL(b)
	clients := make([]*client.Client, throughputClients)
	for i := range clients {
		clients[i] = benchHTTPClient(b, url)
		callOK(b, clients[i], tool)
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for _, c := range clients {
		wg.Add(1)
		go func(c *client.Client) {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := callOnce(c, tool); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	reportPercentiles(b, lat)
}
