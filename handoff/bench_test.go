package handoff_test

import (
	"strings"
	"testing"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
)

func bigTicketRecord(b *testing.B) handoff.Record {
	b.Helper()
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	for i, a := range rec.Artifacts {
		rec.Files[a.Name] = strings.Repeat(a.Name+" paragraph with `code` and ```fences```.\n", 3000)
		rec.Artifacts[i].SHA256 = handoff.HashLF([]byte(rec.Files[a.Name]))
	}
	return rec
}

func BenchmarkRenderWithParts(b *testing.B) {
	rec := bigTicketRecord(b)
	for b.Loop() {
		if _, err := handoff.Render(rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseWithParts(b *testing.B) {
	out, err := handoff.Render(bigTicketRecord(b))
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Join(out, "\n")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := handoff.Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}
