package control

import "testing"

// benchBody is a typical comment: a few lines of prose and one command.
const benchBody = "Thanks, the design looks right to me; the migration can wait for the next sprint.\n\n" +
	"Please pick this up once CI is green (see the failing job in #1234).\n" +
	"the-loop start"

func BenchmarkParse(b *testing.B) {
	p := New(nil)
	b.ReportAllocs()
	for b.Loop() {
		if got := p.Parse(benchBody); got.Command != Start {
			b.Fatalf("got %+v", got)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if p := New(nil); len(p.matchers) != 9 {
			b.Fatal("want nine matchers")
		}
	}
}
