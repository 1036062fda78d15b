package transport

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// Encoded is a tool result's structured content with its JSON encoding
// (json.Marshal's bytes of Value: valid, compact JSON). Each transport
// writes it from its bytes: the line transports (ServeStdio, ServeConn)
// copy JSON in as they encode a message (encodeMessage), and over HTTP the
// response writer puts JSON in place of a stand-in (splice.go). Without
// that, encoding/json would scan it again at every level of nesting, a
// Marshaler's output being validated and compacted each time. Encoded's
// own MarshalJSON gives JSON, so a transport that meets it anyway writes
// the same document.
type Encoded struct {
	Value any
	JSON  []byte
}

// MarshalJSON returns the encoding as it is.
func (e Encoded) MarshalJSON() ([]byte, error) {
	if len(e.JSON) == 0 {
		return json.Marshal(e.Value)
	}
	return e.JSON, nil
}

// writesEncodedKey marks a request served by a line transport.
type writesEncodedKey struct{}

// StructuredForm returns what a tool result answering ctx's request
// carries as its structured content, for e: e itself on a line transport,
// a stand-in over HTTP, and elsewhere (a transport that knows neither)
// e's value, which mcp-go encodes at less cost than compacting the bytes.
func StructuredForm(ctx context.Context, e Encoded) any {
	if len(e.JSON) == 0 {
		return e.Value
	}
	if v, _ := ctx.Value(writesEncodedKey{}).(bool); v {
		return e
	}
	if s, ok := ctx.Value(splicesKey{}).(*splices); ok {
		return s.standIn(e.JSON)
	}
	if e.Value == nil {
		return e
	}
	return e.Value
}

// encodeMessage encodes one JSON-RPC message as json.Marshal does, except
// that a tool result's Encoded structured content is copied in rather
// than re-encoded. The two encodings decode to the same value.
func encodeMessage(msg mcp.JSONRPCMessage) ([]byte, error) {
	resp, ok := msg.(mcp.JSONRPCResponse)
	if !ok {
		return json.Marshal(msg)
	}
	res, ok := resp.Result.(*mcp.CallToolResult)
	if !ok || res == nil || len(res.RawStructuredContent) > 0 {
		return json.Marshal(msg)
	}
	encoded, ok := res.StructuredContent.(Encoded)
	if !ok || len(encoded.JSON) == 0 {
		return json.Marshal(msg)
	}
	structured := encoded.JSON
	shell := *res
	shell.StructuredContent = nil
	body, err := json.Marshal(mcp.JSONRPCResponse{JSONRPC: resp.JSONRPC, ID: resp.ID, Result: &shell})
	if err != nil {
		return nil, err
	}
	// body is {"jsonrpc":…,"id":…,"result":{…}}: the result is the last
	// member (TestEncodeMessageMatchesEncodingJSON holds mcp-go to it), so
	// the structured content goes in before the last two bytes.
	if len(body) < 2 || string(body[len(body)-2:]) != "}}" {
		return json.Marshal(msg)
	}
	out := make([]byte, 0, len(body)+len(structured)+len(`,"structuredContent":`))
	out = append(out, body[:len(body)-2]...)
	if body[len(body)-3] != '{' { // the result has members already
		out = append(out, ',')
	}
	out = append(out, `"structuredContent":`...)
	out = append(out, structured...)
	return append(out, "}}"...), nil
}
