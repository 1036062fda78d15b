package mcp

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/service"
)

// concurrentClients is how many HTTP clients call at once.
const concurrentClients = 32

// loopHTTP serves every shipped tool bound to svc over HTTP.
func loopHTTP(t testing.TB, svc *service.Service) string {
	t.Helper()
	return loopHTTPWith(t, NewServer(Deps{Backend: svc, DefaultRepo: svc.DefaultRepo()}, AllTools(), "test"))
}

// loopHTTPWith serves srv over the real HTTP handler on a loopback
// listener and returns the /mcp URL.
func loopHTTPWith(t testing.TB, srv *server.MCPServer) string {
	t.Helper()
	h, err := transport.NewHTTPHandler(context.Background(), srv, transport.HTTPOptions{Token: testToken, MaxSessions: 4 * concurrentClients})
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		ts.Close()
	})
	return ts.URL + transport.EndpointPath
}

// call is one tool call's outcome as a remote client sees it.
type call struct {
	client int
	tool   string
	item   string
	status string // the graph_complete envelope status
	err    string // protocol error or isError text
}

func callOver(ctx context.Context, c *client.Client, id int, tool string, args map[string]any) call {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	item, _ := args[ArgWorkItem].(string)
	out := call{client: id, tool: tool, item: item}
	res, err := c.CallTool(ctx, req)
	switch {
	case err != nil:
		out.err = "protocol error: " + err.Error()
	case res.IsError:
		for _, content := range res.Content {
			if tc, ok := mcp.AsTextContent(content); ok {
				out.err += tc.Text
			}
		}
	case tool == "graph_complete":
		if m, ok := res.StructuredContent.(map[string]any); ok {
			out.status, _ = m["status"].(string)
		}
	}
	return out
}

// TestConcurrentHTTPClientsShareOneStore runs 32 MCP HTTP clients at once
// against one SQLite store. Each checks and claims its own work item and
// the one work item they all share. No call may fail (in particular with
// "database is locked"), and the event log must hold exactly the claims
// that the serialised walk allows: one per own item, and two on the shared
// item (the first blocks, the second escalates to a human; every later
// claim is refused at the human gate without an event).
func TestConcurrentHTTPClientsShareOneStore(t *testing.T) {
	repo := copyFixture(t)
	own := func(i int) string { return fmt.Sprintf("issue-%d", 100+i) }
	for i := 0; i < concurrentClients; i++ {
		cloneItem(t, repo, "issue-2", own(i))
	}
	svc := newLoopService(t, repo)
	url := loopHTTP(t, svc)

	clients := make([]*client.Client, concurrentClients)
	for i := range clients {
		clients[i] = httpClient(t, url, testToken)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	start := make(chan struct{})
	results := make(chan call, concurrentClients*5)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func(i int, c *client.Client) {
			defer wg.Done()
			<-start
			mine := own(i)
			results <- callOver(ctx, c, i, "check", map[string]any{ArgWorkItem: mine})
			results <- callOver(ctx, c, i, "graph_complete", map[string]any{ArgWorkItem: "issue-2"})
			results <- callOver(ctx, c, i, "graph_complete", map[string]any{ArgWorkItem: mine})
			results <- callOver(ctx, c, i, "check", map[string]any{ArgWorkItem: "issue-2"})
			results <- callOver(ctx, c, i, "check", map[string]any{"all": true})
		}(i, c)
	}
	close(start)
	wg.Wait()
	close(results)

	shared := map[string]int{}
	for r := range results {
		assert.NotContains(t, strings.ToLower(r.err), "locked", "client %d %s %s", r.client, r.tool, r.item)
		assert.Empty(t, r.err, "client %d %s %s", r.client, r.tool, r.item)
		if r.tool != "graph_complete" {
			continue
		}
		if r.item == "issue-2" {
			shared[r.status]++
		} else {
			assert.Equal(t, "block", r.status, "client %d claims its own blocked item once", r.client)
		}
	}
	assert.Equal(t, map[string]int{"block": 1, "escalated": 1, "refused": concurrentClients - 2}, shared,
		"the shared item's claims were serialised: one block, one escalation, the rest refused at the human gate")

	claims := func(id string) int {
		evlog, err := svc.Events(ctx, service.ItemRequest{WorkItem: id})
		evs := evlog.Events
		require.NoError(t, err)
		n := 0
		for _, e := range evs {
			if e.Name == "graph.completion_claimed" {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 2, claims("issue-2"), "no lost update on the shared item")
	for i := 0; i < concurrentClients; i++ {
		assert.Equal(t, 1, claims(own(i)), "no lost update on %s", own(i))
	}
}
