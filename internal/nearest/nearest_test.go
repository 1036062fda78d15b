package nearest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"check", "check", 0},
		{"chek", "check", 1},
		{"isue-2", "issue-2", 1},
		{"issue-12", "issue-21", 1}, // a swap is one edit
		{"graph", "grpah", 1},
		{"kitten", "sitting", 3},
		{"日本", "日", 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Distance(tt.a, tt.b), "%q %q", tt.a, tt.b)
		assert.Equal(t, tt.want, Distance(tt.b, tt.a), "symmetric: %q %q", tt.b, tt.a)
	}
}

func TestClose(t *testing.T) {
	verbs := []string{"advance", "complete", "events", "force", "show", "skip", "start", "status"}
	tests := []struct {
		word string
		want []string
	}{
		{"stats", []string{"status"}},
		{"sho", []string{"show"}},
		{"COMPLETE", []string{"complete"}},
		{"st", []string{"start", "status"}}, // a prefix
		{"comp", []string{"complete"}},      // letters left out
		{"frobnicate", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got := Close(tt.word, verbs)
		if tt.want == nil {
			assert.Empty(t, got, tt.word)
			continue
		}
		assert.Equal(t, tt.want, got, tt.word)
	}
}

func TestCloseFindsALeftOutPart(t *testing.T) {
	loops := []string{"pdlc-adhoc-loop", "pdlc-contribution-loop", "pdlc-pr-loop", "pdlc-review-loop", "pdlc-work-item-loop"}
	assert.Equal(t, []string{"pdlc-pr-loop", "pdlc-work-item-loop"}, Close("pdlc-work-loop", loops))
	assert.Equal(t, []string{"pdlc-review-loop"}, Close("pdlc-reveiw-loop", loops))
}

func TestRanked(t *testing.T) {
	ids := []string{"issue-1", "issue-2", "issue-3", "issue-12"}
	assert.Equal(t, []string{"issue-2", "issue-1", "issue-3"}, Ranked("isue-2", ids, 3))
	assert.Empty(t, Ranked("x", nil, 3))
}

func TestPhrase(t *testing.T) {
	assert.Equal(t, "", Phrase(nil))
	assert.Equal(t, `did you mean "check"?`, Phrase([]string{"check"}))
	assert.Equal(t, `did you mean "a", "b" or "c"?`, Phrase([]string{"a", "b", "c"}))
}
