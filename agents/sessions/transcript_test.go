package sessions

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCappedKeepsTheTailAndCountsWhatItCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	const max = 64 << 10
	c, err := openCapped(path, max)
	require.NoError(t, err)
	var all bytes.Buffer
	for i := 0; i < 5000; i++ {
		line := fmt.Sprintf("{\"type\":\"assistant\",\"n\":%d}\n", i)
		all.WriteString(line)
		n, err := c.Write([]byte(line))
		require.NoError(t, err)
		require.Equal(t, len(line), n)
	}
	require.NoError(t, c.Close())
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(got), max, "the file never passes the cap")
	assert.True(t, bytes.HasSuffix(all.Bytes(), got), "what remains is the stream's tail")
	assert.True(t, strings.HasPrefix(string(got), `{"type"`), "the tail starts at a line")
	assert.Equal(t, int64(all.Len()-len(got)), c.Dropped(), "the cut is counted")

	// A reader that kept up lost nothing; one that fell behind skips the cut.
	var seen bytes.Buffer
	next, lost, err := c.readFrom(0, func(b []byte) { seen.Write(b) })
	require.NoError(t, err)
	assert.Equal(t, c.Dropped(), lost)
	assert.Equal(t, int64(all.Len()), next)
	assert.Equal(t, got, seen.Bytes())
}

func TestCappedKeepsTheTailOfOneHugeWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stderr.log")
	c, err := openCapped(path, 64<<10)
	require.NoError(t, err)
	huge := bytes.Repeat([]byte("x"), 1<<20)
	huge[len(huge)-1] = '!'
	n, err := c.Write(huge)
	require.NoError(t, err)
	assert.Equal(t, len(huge), n)
	require.NoError(t, c.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(64<<10))
	b, _ := os.ReadFile(path)
	assert.Equal(t, byte('!'), b[len(b)-1])
}
