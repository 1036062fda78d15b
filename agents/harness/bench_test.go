package harness

import (
	"bytes"
	"testing"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
)

// BenchmarkMeter reads each CLI's success recording, repeated to about a
// megabyte, as a live transcript is read: the floor splits the same bytes
// into lines and does nothing with them.
func BenchmarkMeter(b *testing.B) {
	transcript := func(cli string) []byte {
		rec, err := harnesstest.Recording(cli, "success")
		if err != nil {
			b.Fatal(err)
		}
		return bytes.Repeat(rec, (1<<20)/len(rec)+1)
	}
	b.Run("floor", func(b *testing.B) {
		t := transcript("claude")
		b.SetBytes(int64(len(t)))
		for b.Loop() {
			n := 0
			for rest := t; len(rest) > 0; {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					break
				}
				n += len(bytes.TrimSpace(rest[:i]))
				rest = rest[i+1:]
			}
			_ = n
		}
	})
	for cli, format := range formats {
		b.Run(cli, func(b *testing.B) {
			t := transcript(cli)
			b.SetBytes(int64(len(t)))
			for b.Loop() {
				m := NewMeter(format)
				_, _ = m.Write(t)
				m.Close()
				_ = m.Usage()
			}
		})
	}
}
