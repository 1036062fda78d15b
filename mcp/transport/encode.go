package transport

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// EncodedJSON is a value already encoded by encoding/json: valid, compact
// JSON. A tool result whose structured content is EncodedJSON is written
// by the line transports (ServeStdio, ServeConn) around those bytes, not
// through encoding/json, which would scan them again at every level of
// nesting (a Marshaler's output is validated and compacted each time).
// Only json.Marshal's own output may be converted to it.
type EncodedJSON []byte

// MarshalJSON returns the bytes as they are.
func (e EncodedJSON) MarshalJSON() ([]byte, error) {
	if len(e) == 0 {
		return []byte("null"), nil
	}
	return e, nil
}

// encodeMessage encodes one JSON-RPC message as json.Marshal does, except
// that a tool result's EncodedJSON structured content is copied in rather
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
	structured, ok := res.StructuredContent.(EncodedJSON)
	if !ok || len(structured) == 0 {
		return json.Marshal(msg)
	}
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
