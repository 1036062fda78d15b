package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// corpusDir is the shared corpus, when present beside the checkout.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs("../../shared/corpus/the-loop-v11.2.0")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "specs")); err != nil {
		tb.Skip("the shared corpus is absent; skipping")
	}
	return dir
}

func benchService(tb testing.TB) *Service {
	tb.Helper()
	return testService(tb, nil, Deps{})
}

// testService is New over cfg and deps with a private database in a
// temporary folder when deps names none; it is closed when tb ends.
func testService(tb testing.TB, cfg *config.Config, deps Deps) *Service {
	tb.Helper()
	if deps.Store == nil {
		deps.Store = store.NewHandle(filepath.Join(tb.TempDir(), "none.db"))
	}
	svc := New(cfg, deps)
	tb.Cleanup(func() { _ = svc.Close() })
	return svc
}

// BenchmarkCheckCorpusRecompute is check --all --recompute over the corpus;
// BenchmarkReadCorpusFloor reads every markdown file once, the floor.
func BenchmarkCheckCorpusRecompute(b *testing.B) {
	dir := corpusDir(b)
	svc := benchService(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := svc.Check(ctx, CheckRequest{Repo: dir, All: true, Recompute: true, Emit: func(runtime.Report, *runtime.Graph, []byte) error { n++; return nil }}); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no work items")
		}
	}
}

func BenchmarkReadCorpusFloor(b *testing.B) {
	dir := corpusDir(b)
	b.ReportAllocs()
	for b.Loop() {
		err := filepath.WalkDir(filepath.Join(dir, "docs", "specs"), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
				return err
			}
			_, err = os.ReadFile(p)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckOneItem is one work item of the fixture repository, the
// per-call cost behind the MCP check tool.
func BenchmarkCheckOneItem(b *testing.B) {
	dir, err := filepath.Abs("../testdata/repo")
	if err != nil {
		b.Fatal(err)
	}
	svc := benchService(b)
	svc.memo.off = true // the computation, not the memo
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Check(ctx, CheckRequest{Repo: dir, WorkItem: "issue-3"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckApprovedItem is check --recompute of the fixture's finished
// item: every decision verified, bound to its repository and comments, and
// each approval compared with the artifacts it locked.
func BenchmarkCheckApprovedItem(b *testing.B) {
	dir, err := filepath.Abs("../testdata/repo")
	if err != nil {
		b.Fatal(err)
	}
	svc := benchService(b)
	svc.memo.off = true // the computation, not the memo
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Check(ctx, CheckRequest{Repo: dir, WorkItem: "issue-4", Recompute: true}); err != nil {
			b.Fatal(err)
		}
	}
}
