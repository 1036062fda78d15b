// Package mcp is the-loop's Model Context Protocol surface: the tools, the
// tool definition pattern, strict argument handling and call logging, and
// NewServer, which assembles them into a server. Package mcp/transport
// serves that server over stdio or streamable HTTP.
//
// It is built on github.com/mark3labs/mcp-go; no JSON-RPC is written by hand.
// Tools are static Tool values whose handlers are built late from Deps: a
// tool is one small file holding its value, and a line in AllTools. Each
// handler decodes the core's request from its arguments, calls the core
// (Backend, *service.Service) and presents the result with its warnings.
//
// Callers that also import mcp-go's own mcp package usually import this one
// as loopmcp.
package mcp
