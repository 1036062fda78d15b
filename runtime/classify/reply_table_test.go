package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyCase is one reply and the outcome the gate must reach.
type replyCase struct {
	class string
	body  string
	want  Outcome
}

// The classes of replies an adversarial review found approving when they
// do not, each next to approvals that must keep approving. Every phrasing
// here is written for this test.
var replyTable = []replyCase{
	// plain approvals in the author's own voice
	{"approval", "Approved.", Approved},
	{"approval", "approved", Approved},
	{"approval", "LGTM", Approved},
	{"approval", "lgtm, thanks!", Approved},
	{"approval", "Looks good to me.", Approved},
	{"approval", "This looks great.", Approved},
	{"approval", "I approve this design.", Approved},
	{"approval", "I hereby approve the requirements.", Approved},
	{"approval", "We approve.", Approved},
	{"approval", "Approving.", Approved},
	{"approval", "I've approved it.", Approved},
	{"approval", "Ship it!", Approved},
	{"approval", "Ready to merge.", Approved},
	{"approval", "Good to go from my side.", Approved},
	{"approval", "+1", Approved},
	{"approval", "The design is approved.", Approved},
	{"approval", "Status: approved", Approved},
	{"approval", "Thanks, great work. Approved.", Approved},
	{"approval", "Requirements approved, nice job.", Approved},
	{"approval", "I'm happy with this.", Approved},
	{"approval", "Go ahead.", Approved},
	{"approval", "LGTM — love the new diagram", Approved},
	{"approval", "Ｌｏｏｋｓ ｇｏｏｄ ｔｏ ｍｅ", Approved},
	// approvals with comments
	{"with comments", "Approved with comments.", ApprovedWithComments},
	{"with comments", "LGTM, nit: the second heading has a typo.", ApprovedWithComments},
	{"with comments", "Approved. Minor: consider renaming the flag in a follow-up.", ApprovedWithComments},
	{"with comments", "Looks good, please fix the typo in the title.", ApprovedWithComments},
	{"with comments", "Approved, but the glossary could be shorter.", ApprovedWithComments},
	// negation separated from the approval by punctuation or distance
	{"negation", "Not approved.", Undecided},
	{"negation", "Not, approved.", Undecided},
	{"negation", "Not — I repeat — approved.", Undecided},
	{"negation", "I do not, after reading it twice over the weekend, approve.", Undecided},
	{"negation", "No. Approved it is not.", Undecided},
	{"negation", "Never approved this one.", Undecided},
	{"negation", "Approved? Not at all.", Undecided},
	{"negation", "This does not look good to me.", Undecided},
	{"negation", "I haven't approved the design yet.", Undecided},
	{"negation", "Nobody approved this.", Undecided},
	{"negation", "LGTM... not.", Undecided},
	{"negation", "approved\nnot", Undecided},
	// refusal verbs outside a negator list
	{"refusal", "I'm unable to approve this.", Undecided},
	{"refusal", "I refuse to approve it in this state.", Undecided},
	{"refusal", "I decline to approve.", Undecided},
	{"refusal", "This is far from approved.", Undecided},
	{"refusal", "I'm withholding my approval.", Undecided},
	{"refusal", "I object. Approved is the wrong word for this.", Undecided},
	{"refusal", "Approval denied - LGTM it is not", Undecided},
	// questions with or without a question mark
	{"question", "Approved?", Undecided},
	{"question", "LGTM?", Undecided},
	{"question", "Is this approved", Undecided},
	{"question", "Should I approve this", Undecided},
	{"question", "Do you think it looks good", Undecided},
	{"question", "Why would I approve this", Undecided},
	{"question", "Can we ship it", Undecided},
	{"question", "I wonder whether it is good to go. Approved", Undecided},
	{"question", "Looks good to me？", Undecided},
	{"question", "Approved¿", Undecided},
	// someone else's approval reported
	{"reported", "Alice approved this.", Undecided},
	{"reported", "Approved by the security team.", Undecided},
	{"reported", "Waiting for Bob to approve.", Undecided},
	{"reported", "@bob please approve", Undecided},
	{"reported", "LGTM, cc @carol", Undecided},
	{"reported", "Bob said LGTM.", Undecided},
	{"reported", "They approved it yesterday.", Undecided},
	{"reported", "Bob: approved", Undecided},
	{"reported", "Approved - Bob", Undecided},
	{"reported", "Approved (per Dana).", Undecided},
	{"reported", "Needs approval from legal.", Undecided},
	{"reported", "Approved on behalf of the architects.", Undecided},
	// partial or pending review
	{"pending", "Looks good so far, I haven't read the rest.", Undecided},
	{"pending", "LGTM for now.", Undecided},
	{"pending", "Approved, will read the rest later.", Undecided},
	{"pending", "Approved. Still reading the testing section.", Undecided},
	{"pending", "First pass: looks good.", Undecided},
	{"pending", "I think it looks good.", Undecided},
	{"pending", "Probably good to go.", Undecided},
	{"pending", "Should be good to merge.", Undecided},
	{"pending", "I'll approve tomorrow.", Undecided},
	{"pending", "Mostly looks good.", Undecided},
	{"pending", "I would approve it.", Undecided},
	{"pending", "It might be good to go.", Undecided},
	// conditions
	{"condition", "Approved once CI is green.", Undecided},
	{"condition", "LGTM if you add the retry test.", Undecided},
	{"condition", "Approved, pending the legal review.", Undecided},
	{"condition", "Ship it unless anyone objects.", Undecided},
	{"condition", "Approved provided the migration is reversible.", Undecided},
	{"condition", "Good to go after the rebase.", Undecided},
	// emoji anywhere
	{"emoji", "👍", Undecided},
	{"emoji", "✅", Undecided},
	{"emoji", "Approved 👍", Undecided},
	{"emoji", "❌ approved", Undecided},
	{"emoji", "🚫\nLGTM", Undecided},
	{"emoji", ":thumbsup:", Undecided},
	{"emoji", "LGTM :shipit:", Undecided},
	{"emoji", "ⓝⓞⓣ approved", Undecided},
	// markup that visibly withholds
	{"markup", "~~Approved~~", Undecided},
	{"markup", "~Approved~ not yet", Undecided},
	{"markup", "<del>LGTM</del>", Undecided},
	{"markup", "<s>Ship it</s>", Undecided},
	{"markup", "- [ ] Approved", Undecided},
	{"markup", "* [ ] LGTM", Undecided},
	{"markup", "> Approved\n\nThat is what I would write if I were happy.", Undecided},
	{"markup", "> Someone wrote:\nApproved", Undecided},
	{"markup", "`approved`", Undecided},
	{"markup", "```\napproved\n```", Undecided},
	{"markup", "    approved", Undecided},
	{"markup", "<!-- Approved -->", Undecided},
	{"markup", "<!-- not --> Approved", Approved},
	{"markup", "<code>LGTM</code>", Undecided},
	{"markup", "- [x] Approved", Approved},
	// invisible and look-alike characters inside the negation
	{"invisible", "n\u200bot approved", Undecided},
	{"invisible", "n\u00adot approved", Undecided},
	{"invisible", "n\u2060ot approved", Undecided},
	{"invisible", "no\u0301t approved", Undecided},
	{"lookalike", "n\u043et approved", Undecided},
	{"lookalike", "n\u03bft approved", Undecided},
	{"lookalike", "\u0274ot approved", Undecided},
	{"lookalike", "ｎｏｔ approved", Undecided},
	{"lookalike", "\U0001d427\U0001d428\U0001d42d approved", Undecided},
	{"lookalike", "nöt approved", Undecided},
	{"lookalike", "n\u022ft approved", Undecided},
	{"bidi", "\u202edevorppa ton\u202c", Undecided},
	{"bidi", "approved\u2067 not\u2069", Undecided},
	{"control", "approved\x1b[8m not", Undecided},
	// change requests
	{"changes", "Changes requested: the threat model skips the webhook.", ChangesRequested},
	{"changes", "Needs work.", ChangesRequested},
	{"changes", "Do not merge — the migration drops a column.", ChangesRequested},
	{"changes", "Rejected.", ChangesRequested},
	{"changes", "Please add an abuse case for replayed webhooks.", ChangesRequested},
	{"changes", "Could you rename the section?", ChangesRequested},
	{"changes", "Not approved: please fix the error handling first.", ChangesRequested},
	{"changes", "LGTM overall but I request changes on section 3.", ChangesRequested},
	{"not changes", "No changes needed.", Undecided},
	{"not changes", "Does this need changes?", Undecided},
	{"not changes", "I'd request changes if the tests failed.", Undecided},
	{"not changes", "No blockers from me.", Undecided},
	// nothing decisive
	{"chatter", "Thanks!", Undecided},
	{"chatter", "Interesting choice of data model.", Undecided},
	{"chatter", "", Undecided},
	{"chatter", "Please explain the retry policy.", Undecided},
}

func TestReplyTableCoversEveryClass(t *testing.T) {
	require.GreaterOrEqual(t, len(replyTable), 100)
	classes := map[string]int{}
	for _, c := range replyTable {
		classes[c.class]++
	}
	for _, want := range []string{"negation", "refusal", "question", "reported", "pending", "condition", "emoji",
		"markup", "invisible", "lookalike", "bidi", "changes", "approval", "with comments"} {
		assert.Positive(t, classes[want], want)
	}
}

func TestReplyTable(t *testing.T) {
	for _, tt := range replyTable {
		t.Run(tt.class+"/"+tt.body, func(t *testing.T) {
			v := Classify(tt.body)
			assert.Equal(t, tt.want, v.Outcome, "reason: %s", v.Reason)
			assert.NotEmpty(t, v.Reason)
		})
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
		{"ignore my LGTM", []string{"LGTM", "Not approved, ignore my LGTM."}, Undecided},
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
		{"Security sign-off 👍", false},
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
		{"n\u043et done", MoreWork},
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
