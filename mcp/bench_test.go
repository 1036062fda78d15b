package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

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

// sizedAnswer is what the sized no-op answers every call with: the report
// check gives for the benchmarked item, computed once by benchServer.
var sizedAnswer service.CheckResult

// sizedEncoded is sizedAnswer's report encoded, as check's memo keeps it.
var sizedEncoded []byte

// sizedNoopTool decodes check's arguments and answers with sizedAnswer,
// from its encoding as check answers from its memo: the floor of a call
// whose answer is as large as check's (decoding, encoding, transport),
// without the check.
var sizedNoopTool = Tool{
	Def: NewToolDef("noop_sized", Annotations{Title: "Sized no-op (benchmark floor)", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Benchmark floor: answers with a fixed report."),
		mcp.WithString(ArgWorkItem, mcp.Description("Ignored.")),
	),
	Handler: handle(func(_ context.Context, _ Deps, _ service.CheckRequest) *mcp.CallToolResult {
		return result(transport.Encoded{Value: sizedAnswer.Reports[0], JSON: sizedEncoded}, checkSummary(sizedAnswer), sizedAnswer.Warnings)
	}),
}

// benchArgs name the work item check evaluates: issue-2, blocked at
// requirements-definition, with a stored state record.
var benchArgs = map[string]any{ArgWorkItem: "issue-2"}

// benchServer is the server the benchmarks call: every shipped tool plus
// noop, bound to the real core over a copy of the fixture. The core's
// state store is open, as in a server that has already taken a claim (a
// claim on issue-3, a human gate, is refused and writes nothing), so check
// reads the stored state the way a long-running server does. It returns
// once what the set-up wrote has settled (service.CheckMemoSettle): a
// server asked again about an unchanged item answers from its memo, which
// keeps nothing written within that time.
func benchServer(b *testing.B) (*server.MCPServer, string) {
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
	sizedAnswer, err = svc.Check(context.Background(), service.CheckRequest{WorkItem: benchArgs[ArgWorkItem].(string)})
	require.NoError(b, err)
	sizedEncoded, _ = json.Marshal(sizedAnswer.Reports[0])
	time.Sleep(service.CheckMemoSettle + 100*time.Millisecond)
	return NewServer(Deps{Backend: svc, DefaultRepo: repo}, append(AllTools(), noopTool, sizedNoopTool), "bench"), repo
}

// changeItem returns a function that changes the benchmarked item's
// folder (a file's mode, back and forth) so the next check computes
// afresh: the cost of a check after an edit.
func changeItem(b *testing.B, repo string) func() {
	p := filepath.Join(repo, "docs", "specs", "issue-2", "requirements.md")
	mode := os.FileMode(0o600)
	return func() {
		mode ^= 0o044
		if err := os.Chmod(p, mode); err != nil {
			b.Fatal(err)
		}
	}
}

// callOK makes one call from the benchmark goroutine and stops the
// benchmark on failure.
func callOK(b *testing.B, c benchCaller, tool string) {
	if err := c.call(tool); err != nil {
		b.Fatal(err)
	}
}

// benchLatency calls tool b.N times in sequence and reports p50 and p99;
// before, when set, runs ahead of each call, untimed.
func benchLatency(b *testing.B, c benchCaller, tool string, before func()) {
	callOK(b, c, tool) // warm: graph compiled, files cached
	lat := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if before != nil {
			before()
		}
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

// BenchmarkCheckStdio asks again and again about an unchanged item, as an
// agent polling where its item stands does; BenchmarkCheckChangedStdio
// changes the item's folder before each call, so every check computes.
func BenchmarkCheckStdio(b *testing.B) {
	srv, _ := benchServer(b)
	benchLatency(b, benchStdioClient(b, srv), "check", nil)
}

func BenchmarkCheckChangedStdio(b *testing.B) {
	srv, repo := benchServer(b)
	benchLatency(b, benchStdioClient(b, srv), "check", changeItem(b, repo))
}

func BenchmarkNoopStdio(b *testing.B) {
	srv, _ := benchServer(b)
	benchLatency(b, benchStdioClient(b, srv), "noop", nil)
}

func BenchmarkNoopSizedStdio(b *testing.B) {
	srv, _ := benchServer(b)
	benchLatency(b, benchStdioClient(b, srv), "noop_sized", nil)
}

func BenchmarkNoopSizedHTTP(b *testing.B) {
	srv, _ := benchServer(b)
	benchLatency(b, benchHTTPClient(b, benchHTTPURL(b, srv)), "noop_sized", nil)
}

func BenchmarkCheckHTTP(b *testing.B) {
	srv, _ := benchServer(b)
	benchLatency(b, benchHTTPClient(b, benchHTTPURL(b, srv)), "check", nil)
}

func BenchmarkCheckChangedHTTP(b *testing.B) {
	srv, repo := benchServer(b)
	benchLatency(b, benchHTTPClient(b, benchHTTPURL(b, srv)), "check", changeItem(b, repo))
}

func BenchmarkNoopHTTP(b *testing.B) {
	srv, _ := benchServer(b)
	benchLatency(b, benchHTTPClient(b, benchHTTPURL(b, srv)), "noop", nil)
}

// processCPU is the CPU time (user and system) this process has used: a
// call's cost in CPU, clients and server together, is steadier than calls
// per second on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// throughputClients is the number of concurrent HTTP clients.
const throughputClients = 16

// BenchmarkHTTPThroughput16 spreads b.N check calls over 16 concurrent
// HTTP clients and reports calls per second, the CPU time (clients and
// server) per call, and per-call p50 and p99.
func BenchmarkHTTPThroughput16(b *testing.B) { benchThroughput(b, "check") }

// BenchmarkNoopHTTPThroughput16 is the same with the no-op tool: the
// transport's own ceiling on this machine.
func BenchmarkNoopHTTPThroughput16(b *testing.B) { benchThroughput(b, "noop") }

// BenchmarkNoopSizedHTTPThroughput16 is the same with the sized no-op: the
// ceiling for an answer as large as check's.
func BenchmarkNoopSizedHTTPThroughput16(b *testing.B) { benchThroughput(b, "noop_sized") }

func benchThroughput(b *testing.B, tool string) {
	srv, _ := benchServer(b)
	url := benchHTTPURL(b, srv)
	clients := make([]benchCaller, throughputClients)
	for i := range clients {
		clients[i] = benchHTTPClient(b, url)
		callOK(b, clients[i], tool)
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := processCPU()
	start := time.Now()
	for _, c := range clients {
		wg.Add(1)
		go func(c benchCaller) {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := c.call(tool); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N), "cpu-µs/call")
	reportPercentiles(b, lat)
}
