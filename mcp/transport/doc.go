// Package transport serves an MCP server (built by package mcp from the
// tools) over stdio or streamable HTTP, with the HTTP security layer:
// Origin allow-list, bearer-token or OAuth 2.1 resource-server
// authentication, body, connection and session limits, and graceful
// shutdown. It records who is calling as a Principal in each call's
// context; the tools read it there and know nothing else of the transport.
package transport
