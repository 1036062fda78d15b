package transport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrameWriterSplitsLines(t *testing.T) {
	var got []string
	var sink strings.Builder
	fw := &frameWriter{w: &sink, onFrame: func(b []byte) { got = append(got, string(b)) }}
	for _, chunk := range []string{`{"a":`, "1}\n{\"b\"", ":2}\n\n", `{"c":3}`} {
		n, err := fw.Write([]byte(chunk))
		require.NoError(t, err)
		assert.Equal(t, len(chunk), n)
	}
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`, ``}, got)
	assert.Equal(t, "{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}", sink.String(), "bytes pass through unchanged")
}

func TestInflightTracking(t *testing.T) {
	tr := newInflight()
	tr.request([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	tr.request([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`))
	tr.request([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	assert.Equal(t, 2, tr.count(), "notifications are not awaited")
	idle := tr.idle()
	tr.response([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}`))
	assert.Equal(t, 2, tr.count(), `string "1" does not answer numeric 1`)
	tr.response([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	tr.response([]byte(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage"}`))
	assert.Equal(t, 1, tr.count(), "server-to-client requests are not answers")
	select {
	case <-idle:
		t.Fatal("idle before every request was answered")
	default:
	}
	tr.response([]byte(`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}`))
	<-idle
	assert.Equal(t, 0, tr.count())
}

func TestResponseHeadReadsOnlyWhatItNeeds(t *testing.T) {
	big := `"` + strings.Repeat("x", 1<<16) + `"`
	tests := []struct {
		name, frame string
		id          string // "" = not an answer
	}{
		{"result after id", `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`, "3"},
		{"error after id", `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"no"}}`, `"a"`},
		{"id after a large result", `{"jsonrpc":"2.0","result":{"text":` + big + `},"id":4}`, "4"},
		{"id after the error", `{"error":{"code":1,"message":"x"},"id":5}`, "5"},
		{"server-to-client request", `{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`, ""},
		{"method after id", `{"id":8,"params":{},"method":"roots/list"}`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, ""},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, ""},
		{"not json", `hello`, ""},
		{"empty", ``, ""},
		{"truncated before the id", `{"jsonrpc":"2.0","res`, ""},
		{"spaced", ` { "id" : 9 , "result" : { } } `, "9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := answerID([]byte(tt.frame))
			if tt.id == "" {
				assert.False(t, ok, "not an answer: %s", id)
				return
			}
			require.True(t, ok)
			assert.JSONEq(t, tt.id, string(id))
		})
	}
}

func TestFrameWriterReportsLinesOfOneWriteWithoutHoldingThem(t *testing.T) {
	var got []string
	var sink strings.Builder
	fw := &frameWriter{w: &sink, onFrame: func(b []byte) { got = append(got, string(b)) }}
	_, err := fw.Write([]byte("{\"a\":1}\n{\"b\":2}\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`}, got)
	assert.Nil(t, fw.partial, "nothing is kept once every line is complete")
	_, err = fw.Write([]byte("{\"c\":"))
	require.NoError(t, err)
	_, err = fw.Write([]byte("3}\n{\"d\""))
	require.NoError(t, err)
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}, got)
	assert.Equal(t, `{"d"`, string(fw.partial))
}
