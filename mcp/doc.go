// Package mcp is the-loop's Model Context Protocol server: the tool
// definition pattern, strict argument handling, call logging, and the two
// transports (stdio and streamable HTTP) with the HTTP security layer
// (Origin allow-list, bearer or OAuth 2.1 resource-server auth, body and
// session limits, graceful shutdown).
//
// It is built on github.com/mark3labs/mcp-go; no JSON-RPC is written by hand.
// Tools are static Tool values whose handlers are built late from Deps, so a
// tool is one small file that calls register from init.
//
// Callers that also import mcp-go's own mcp package usually import this one
// as loopmcp.
package mcp
