package classify

import (
	"testing"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// BenchmarkReader reads every reply of the table once per iteration. Its
// floor, BenchmarkReaderFloor, only projects and folds them (what any
// reader must do before it reads a word): the ratio of the two is the cost
// of the grammar.
func BenchmarkReader(b *testing.B) {
	for b.Loop() {
		for _, c := range replyTable {
			Classify(c.body)
		}
	}
}

func BenchmarkReaderFloor(b *testing.B) {
	for b.Loop() {
		for _, c := range replyTable {
			_, _ = plaintext.Fold(plaintext.Marked(c.body))
		}
	}
}
