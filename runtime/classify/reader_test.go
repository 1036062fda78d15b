package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplyTableCoversEveryClass(t *testing.T) {
	require.GreaterOrEqual(t, len(replyTable), 300)
	classes := map[string]int{}
	for _, c := range replyTable {
		classes[c.class]++
	}
	for _, want := range []string{"approve/plain", "approve/company", "approve/later-nit", "changes/explicit",
		"changes/critique", "changes/imperative", "changes/labelled", "changes/with-approval", "wait/deferral",
		"wait/question", "wait/meta", "adv/quoted", "adv/struck", "adv/hidden", "adv/negated", "adv/conditional",
		"adv/other-subject", "adv/reported", "adv/sarcasm", "adv/retraction", "adv/lookalike", "adv/invisible"} {
		assert.Positive(t, classes[want], want)
	}
}

// A later reply that is not an approval supersedes an earlier approval in
// the same visit, retractions included.
func TestRetractionSupersedesAnApproval(t *testing.T) {
	tests := []struct {
		name   string
		bodies []string
		want   Outcome
	}{
		{"ignore my LGTM", []string{"LGTM", "Not approved, ignore my LGTM."}, ChangesRequested},
		{"scratch that", []string{"Approved.", "Scratch that."}, Undecided},
		{"retracted", []string{"Ship it", "I retract my approval."}, Undecided},
		{"question after", []string{"Approved.", "Wait, did anyone run the migration?"}, Undecided},
		{"thanks after", []string{"Approved.", "Thanks!"}, Undecided},
		{"approval again", []string{"Not approved.", "Fixed now — approved."}, Approved},
		{"change request after approval", []string{"LGTM", "Actually, needs work."}, ChangesRequested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, idx := Decide(tt.bodies)
			assert.Equal(t, tt.want, v.Outcome, v.Reason)
			if tt.want.Decisive() {
				assert.Equal(t, len(tt.bodies)-1, idx, "the newest reply decides")
			} else {
				assert.Equal(t, -1, idx)
			}
		})
	}
}

func TestSignOffReaderIsStrict(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"Security sign-off.", true},
		{"I sign off on security.", true},
		{"Security sign-off: granted", true},
		{"Signed off on the security review.", true},
		{"Waiting for security sign-off.", false},
		{"Security sign-off pending.", false},
		{"Security sign-off from Bob.", false},
		{"Bob gave the security sign-off.", false},
		{"security sign-off? not from me", false},
		{"Security sign-off once the token handling is fixed.", false},
		{"~~Security sign-off~~", false},
		{"<del>security sign-off</del> not yet", false},
		{"Security sign-off: I have not looked at it.", false},
		{"Security sign-off 🙄", false},
		{"Security sign-off 👍", true},
		{"n\u200bo security sign-off", false},
		{"Is there a security sign-off", false},
		{"Security sign-off: @dana will do it", false},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, reason := SignsOff(tt.body)
			assert.Equal(t, tt.want, got, reason)
		})
	}
}

func TestDoneReaderIsStrict(t *testing.T) {
	tests := []struct {
		body string
		want DoneOutcome
	}{
		{"Done.", Done},
		{"All done, thanks!", Done},
		{"That's all.", Done},
		{"Done: no", MoreWork},
		{"Done? Not quite.", MoreWork},
		{"Not done yet.", MoreWork},
		{"We'll be done once the footer is fixed.", MoreWork},
		{"Done. Also bump the version.", MoreWork},
		{"Bob says we're done.", MoreWork},
		{"~~done~~ the header still overlaps", MoreWork},
		{"n\u043et done", NotYet},
		{"✅", NotYet},
		{"Thanks!", NotYet},
		{"", NotYet},
		{"\u202edone\u202c", NotYet},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, reason := ReadDone(tt.body)
			assert.Equal(t, tt.want, got, reason)
			assert.NotEmpty(t, reason)
		})
	}
}

// An approval that names another artifact does not approve the one under
// review.
func TestApprovalNamingAnotherArtifact(t *testing.T) {
	design := []string{"design.md"}
	assert.Equal(t, Undecided, ClassifyFor("Requirements approved.", design).Outcome)
	assert.Equal(t, Undecided, ClassifyFor("The requirements look good.", design).Outcome)
	assert.Equal(t, Approved, ClassifyFor("The design looks good.", design).Outcome)
	assert.Equal(t, Approved, ClassifyFor("Approved.", design).Outcome)
	assert.Equal(t, Approved, ClassifyFor("This spec is approved.", design).Outcome)
	v, idx := DecideFor([]string{"Design approved.", "The test plan looks good."}, design)
	assert.Equal(t, Undecided, v.Outcome, "the newest reply names another artifact")
	assert.Equal(t, -1, idx)
}
