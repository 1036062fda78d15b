package sessions

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/store"
)

// benchSupervisor is a supervisor over a real store and the fake harness.
func benchSupervisor(b *testing.B, max int) (*Supervisor, string) {
	b.Helper()
	state, err := os.MkdirTemp("", "tlb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(state) })
	st, err := store.Open(context.Background(), filepath.Join(state, "the-loop.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	fake := filepath.Join(state, "fake")
	if err := os.MkdirAll(fake, 0o700); err != nil {
		b.Fatal(err)
	}
	bin := testbin.Build(b, fakePkg)
	hs := map[string]harness.Config{"fake": {Adapter: harness.AdapterCommand, Output: harness.OutputStreamJSON,
		Argv: []string{bin, "--prompt-file", "{prompt_file}", "--workdir", "{workdir}", "--work-item", "{work_item}", "--state", fake}}}
	s, err := New(Config{Max: max}, Deps{Store: st, Harnesses: hs, Serve: []string{"/usr/local/bin/the-loop", "serve"}, StateDir: state,
		Log: slog.New(slog.NewTextHandler(ioDiscard{}, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s, fake
}

// BenchmarkCycleNoop is the floor: a cycle with nothing watched.
func BenchmarkCycleNoop(b *testing.B) {
	s, _ := benchSupervisor(b, 20)
	ctx := context.Background()
	b.ReportAllocs()
	cpu := startCPU(b)
	for i := 0; i < b.N; i++ {
		if _, err := s.Cycle(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// cpuMeter reports the process's CPU time (all threads, the collector's
// included) per iteration as cpu-ns/op.
type cpuMeter struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) cpuMeter {
	b.ResetTimer()
	return cpuMeter{start: cpuNow()}
}

func (m cpuMeter) report(b *testing.B) {
	b.StopTimer()
	b.ReportMetric(float64(cpuNow()-m.start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCycle100Items20Live is one steady-state cycle with 100 items
// standing on agent nodes and 20 live sessions (sessions.max: 20), so 80
// wait in the queue: each cycle checks every live session's exit, time
// limit, transcript and budget, and re-ranks the queue.
func BenchmarkCycle100Items20Live(b *testing.B) {
	s, fake := benchSupervisor(b, 20)
	ctx := context.Background()
	work := b.TempDir()
	wants := make([]Want, 100)
	for i := range wants {
		item := fmt.Sprintf("issue-%d", i)
		dir := filepath.Join(work, item)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		wants[i] = Want{Repo: "octo/widgets", WorkItem: item, Node: "implementation", Harness: "fake", Workdir: dir, Order: int64(i),
			Prompt: "fake: hang-runs=9 turns=3 tokens=900\n"}
	}
	rep, err := s.Cycle(ctx, wants)
	if err != nil {
		b.Fatal(err)
	}
	if len(rep.Started) != 20 || len(rep.Queued) != 80 {
		b.Fatalf("started %d, queued %d", len(rep.Started), len(rep.Queued))
	}
	for _, st := range rep.Started {
		ready := filepath.Join(fake, st.WorkItem+".run-1.ready")
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(ready); err == nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("session for %s never got ready", st.WorkItem)
			}
		}
	}
	if _, err := s.Cycle(ctx, wants); err != nil { // reads every transcript once
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := startCPU(b)
	for i := 0; i < b.N; i++ {
		rep, err := s.Cycle(ctx, wants)
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Live) != 20 || len(rep.Started) != 0 {
			b.Fatalf("live %d, started %d", len(rep.Live), len(rep.Started))
		}
	}
	cpu.report(b)
}
