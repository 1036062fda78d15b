package harness

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
)

// FuzzMeter feeds any bytes to every reader: none panics, every figure
// stays within its bounds, and reading in chunks gives what reading whole
// gives. It is seeded with every recording, so a short run explores the
// event shapes each reader handles.
func FuzzMeter(f *testing.F) {
	for _, cli := range harnesstest.CLIs {
		for _, name := range harnesstest.Recordings(cli) {
			b, err := harnesstest.Recording(cli, name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, int64(len(name)))
		}
	}
	f.Add([]byte(`{"type":"step_finish","part":{"cost":-1,"tokens":{"input":-5}}}`+"\n"), int64(1))
	f.Add([]byte(`{"type":"result","stats":{"models":{"m":{"input_tokens":1,"cached":9}}}}`+"\n"), int64(2))
	f.Fuzz(func(t *testing.T, b []byte, seed int64) {
		for _, format := range Outputs {
			whole := NewMeter(format)
			_, _ = whole.Write(b)
			whole.Close()
			chunked := NewMeter(format)
			r := rand.New(rand.NewSource(seed))
			for rest := b; len(rest) > 0; {
				n := 1 + r.Intn(len(rest))
				_, _ = chunked.Write(rest[:n])
				rest = rest[n:]
			}
			chunked.Close()
			u := whole.Usage()
			if got := chunked.Usage(); !sameUsage(u, got) {
				t.Fatalf("%s: chunked read %+v, whole read %+v", format, got, u)
			}
			switch {
			case u.Turns < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheCreationTokens < 0 || u.Tokens() < 0:
				t.Fatalf("%s: a negative figure: %+v", format, u)
			case u.CostUSD < 0 || (u.Cost == "" && u.CostUSD != 0):
				t.Fatalf("%s: cost %v (%q)", format, u.CostUSD, u.Cost)
			case len(u.Result) > maxText || len(u.Error) > maxText || len(u.Unknown) > maxUnknown:
				t.Fatalf("%s: unbounded text: %d, %d, %d", format, len(u.Result), len(u.Error), len(u.Unknown))
			}
			for _, m := range u.Models {
				if m.Input < 0 || m.Output < 0 || m.CacheRead < 0 || m.CacheWrite < 0 {
					t.Fatalf("%s: a negative model figure: %+v", format, u.Models)
				}
			}
		}
	})
}

func sameUsage(a, b Usage) bool { return reflect.DeepEqual(a, b) }
