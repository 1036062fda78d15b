package transport

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizeAddr(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{":8765", "127.0.0.1:8765", ""},
		{"8765", "127.0.0.1:8765", ""},
		{"127.0.0.1:8765", "127.0.0.1:8765", ""},
		{"[::1]:9", "[::1]:9", ""},
		{"0.0.0.0:80", "0.0.0.0:80", ""},
		{"localhost", "", "not HOST:PORT"},
		{"host:http", "", "is not a number"},
		{"", "", "give an address"},
	}
	for _, tt := range tests {
		got, err := normalizeAddr(tt.in)
		if tt.err != "" {
			require.Error(t, err, tt.in)
			assert.Contains(t, err.Error(), tt.err)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got)
	}
	assert.True(t, isLoopback("127.0.0.1:1"))
	assert.True(t, isLoopback("[::1]:1"))
	assert.True(t, isLoopback("localhost:1"))
	assert.False(t, isLoopback("0.0.0.0:1"))
	assert.False(t, isLoopback("[::]:1"))
	assert.False(t, isLoopback("10.0.0.1:1"))
}
