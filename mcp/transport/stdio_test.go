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
