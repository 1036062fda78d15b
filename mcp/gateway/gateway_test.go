package gateway

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

// whoami is a server whose one tool says which session's server answered.
func whoami(scope Scope) (*server.MCPServer, error) {
	srv := server.NewMCPServer("test", "1")
	srv.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p, _ := transport.PrincipalFromContext(ctx)
		return mcp.NewToolResultText(scope.WorkItem + " " + p.Subject), nil
	})
	return srv, nil
}

func serveConn(ctx context.Context, srv *server.MCPServer, conn net.Conn, scope Scope) error {
	return transport.ServeConn(ctx, srv, conn, transport.Principal{Subject: "session:" + scope.Session, Method: "session"}, nil)
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	return res.Content[0].(mcp.TextContent).Text
}

func TestAGatewayServesEachSessionOnlyWithItsOwnCapability(t *testing.T) {
	ctx := context.Background()
	g := New(whoami, serveConn, nil)
	defer g.Shutdown()
	// A directory deep enough that its socket's path passes sun_path.
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 40))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a"), 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "b"), 0o700))
	sockA, sockB := filepath.Join(dir, "a", "loop.sock"), filepath.Join(dir, "b", "loop.sock")
	require.Greater(t, len(sockA), 108)
	capA, err := g.Open(ctx, sockA, Scope{Session: "s-a", WorkItem: "issue-1", Node: "design"})
	require.NoError(t, err)
	capB, err := g.Open(ctx, sockB, Scope{Session: "s-b", WorkItem: "issue-2", Node: "design"})
	require.NoError(t, err)
	assert.NotEqual(t, capA, capB)

	res, err := Call(ctx, sockA, capA, "whoami", nil)
	require.NoError(t, err)
	assert.Equal(t, "issue-1 session:s-a", text(t, res), "the session's own server answers, as the session")

	for name, c := range map[string]struct{ sock, cap string }{
		"another session's capability": {sockA, capB},
		"a guessed capability":         {sockA, strings.Repeat("0", 64)},
		"no capability":                {sockB, ""},
	} {
		_, err := Call(ctx, c.sock, c.cap, "whoami", nil)
		assert.True(t, errors.Is(err, ErrRefused), "%s: %v", name, err)
		assert.ErrorContains(t, err, "the capability is not this session's", name)
	}

	// Revoked when the session ends: the socket is gone, a live
	// connection is cut.
	conn, _, err := Dial(ctx, sockB, capB)
	require.NoError(t, err)
	g.Close("s-b")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	assert.Error(t, err, "the connection ends with the session")
	_, err = Call(ctx, sockB, capB, "whoami", nil)
	assert.Error(t, err)
	_, statErr := os.Stat(sockB)
	assert.True(t, os.IsNotExist(statErr), "the socket is removed")

	res, err = Call(ctx, sockA, capA, "whoami", nil)
	require.NoError(t, err, "the other session is untouched")
	assert.Equal(t, "issue-1 session:s-a", text(t, res))
}

func TestAGatewayRefusesASecondSocketForOneSession(t *testing.T) {
	g := New(whoami, serveConn, nil)
	defer g.Shutdown()
	dir := t.TempDir()
	_, err := g.Open(context.Background(), filepath.Join(dir, "1.sock"), Scope{Session: "s-a", WorkItem: "issue-1", Node: "design"})
	require.NoError(t, err)
	_, err = g.Open(context.Background(), filepath.Join(dir, "2.sock"), Scope{Session: "s-a", WorkItem: "issue-1", Node: "design"})
	assert.ErrorContains(t, err, "already has a socket")
	_, err = g.Open(context.Background(), filepath.Join(dir, "3.sock"), Scope{Session: "s-c"})
	assert.Error(t, err, "a scope names its item and node")
}
