package mcp
import ("context";"testing";"github.com/the-loop/the-loop/service")
func BenchmarkZZCore(b *testing.B) {
	svc := newLoopService(b, copyFixture(b))
	ctx := context.Background()
	for i := 0; i < b.N; i++ { if _, err := svc.Check(ctx, service.CheckRequest{WorkItem: "issue-2"}); err != nil { b.Fatal(err) } }
}
