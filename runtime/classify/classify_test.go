package classify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassifyRealisticReplies(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Outcome
	}{
		// terse
		{"lgtm", "LGTM", Approved},
		{"lgtm with bang", "lgtm!", Approved},
		{"approved", "Approved.", Approved},
		{"ship it", "Ship it", Approved},
		{"plus one", "+1", Approved},
		{"thumbs up emoji alone is not a decision", "👍", Undecided},
		{"thumbs up with skin tone", "👍🏽", Undecided},
		{"check mark beside words", "✅ good to go", Approved},
		{"github shortcode", ":shipit:", Undecided},
		{"thumbs down alone", "👎", Undecided},
		{"rejected", "Rejected.", ChangesRequested},
		{"not ready", "not ready", ChangesRequested},
		// verbose
		{"verbose approval", "I read the whole requirements doc again this morning and I'm happy with it. Approved, thanks for the careful work on the security section.", Approved},
		{"verbose change request", "Thanks for this. The acceptance criteria for the retry path are missing and the threat model skips the webhook. Changes requested.", ChangesRequested},
		{"needs work", "This needs more work before I can sign off on it.", ChangesRequested},
		{"do not merge", "Do not merge yet — the migration is not reversible.", ChangesRequested},
		{"blocker", "One blocker: the token is logged in plain text.", ChangesRequested},
		{"request changes beats lgtm", "LGTM overall but I request changes on section 3.", ChangesRequested},
		{"please change", "Looks good, please change the title though.", ChangesRequested},
		// reservations
		{"nit", "LGTM, one nit: the heading is misspelled.", ApprovedWithComments},
		{"but", "Approved but let's rename the flag in a follow-up.", ApprovedWithComments},
		{"however", "Looks good. However, the diagram is hard to read.", ChangesRequested},
		{"minor", "ship it — minor typo in line 4", ApprovedWithComments},
		{"one thing", "Approved. One thing: mention the rate limit.", ChangesRequested},
		{"one thing for later", "Approved. One thing for later: mention the rate limit.", ApprovedWithComments},
		{"please fix with approval", "LGTM, please fix the typo before merging.", ChangesRequested},
		{"question after approval", "Approved. Did you consider caching the token?", Undecided},
		{"explicit with comments", "approved with comments", ApprovedWithComments},
		{"button is not but", "LGTM, love the new button", Approved},
		{"unit is not nit", "lgtm, the unit tests are thorough", Approved},
		{"no nits", "No nits, approved.", Approved},
		{"not perfect but approved", "Not perfect, but approved.", Approved},
		// negations
		{"not approved", "Not approved.", ChangesRequested},
		{"have not approved", "I have not approved this.", Undecided},
		{"dont approve", "I don't approve this approach.", ChangesRequested},
		{"cant approve yet", "Can't approve yet.", Undecided},
		{"curly apostrophe", "I can’t approve this yet", Undecided},
		{"doesnt look good", "This doesn't look good to me.", ChangesRequested},
		{"i do not think it looks good", "I do not think it looks good", ChangesRequested},
		{"withheld beats lgtm", "LGTM overall, but I can't approve until CI passes.", Undecided},
		{"not approved with reason", "Not approved — please fix the error handling first.", ChangesRequested},
		{"no changes needed", "No changes needed, approved!", Approved},
		{"no blockers", "I don't see any blockers. Ship it.", Approved},
		{"no changes requested is not a request", "no changes requested from my side", Undecided},
		// hedges and conditions
		{"will approve once", "I'll approve once the tests pass.", Undecided},
		{"conditional after comma", "LGTM, once CI is green.", Undecided},
		{"should be good", "should be good to go", Undecided},
		// questions
		{"question only", "Looks good?", Undecided},
		{"is this approved", "Is this approved already?", Undecided},
		{"plain question", "Why did you pick SQLite over Postgres?", Undecided},
		{"polite request question", "Could you rename the section to Threat model?", ChangesRequested},
		{"does this need changes", "Does this need changes?", Undecided},
		// quoted text
		{"quoted rejection then approval", "> Changes requested: add the retry test\n\nDone now, LGTM.", Approved},
		{"quoted approval then request", "> LGTM\n\nActually, needs changes: the diagram is wrong.", ChangesRequested},
		{"quoted only", "> approved", Undecided},
		{"code block", "```\nstatus: rejected\n```\nApproved.", Approved},
		{"inline code", "Approved. The `rejected` state is gone.", Undecided},
		// partial and undecided
		{"partial review", "Looks good so far, I'll finish the design section tomorrow.", Undecided},
		{"still reviewing", "Still reviewing, ship it comments are premature.", ChangesRequested},
		{"thanks", "Thanks!", Undecided},
		{"empty", "", Undecided},
		{"a comment with no verdict", "Interesting choice of data model.", Undecided},
		{"please explain", "Please explain the retry policy.", ChangesRequested},
		{"request without approval", "Please add an abuse case for replayed webhooks.", ChangesRequested},
		{"should be fixed", "The typo in the heading should be fixed.", ChangesRequested},
		{"non-blocking is one word", "non-blocking: consider a cache. Approved", ApprovedWithComments},
		{"hidden html comment", "<!-- rejected -->approved", Undecided},
	}
	require.GreaterOrEqual(t, len(tests), 40)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(tt.body)
			assert.Equal(t, tt.want, v.Outcome, "reason: %s", v.Reason)
			assert.NotEmpty(t, v.Reason)
		})
	}
}

func TestReasonQuotesOnlyVocabulary(t *testing.T) {
	for _, body := range []string{"lgtm, SECRET-TOKEN-123 is fine", "not approved SECRET-TOKEN-123", "SECRET-TOKEN-123 needs work"} {
		v := Classify(body)
		assert.NotContains(t, strings.ToLower(v.Reason), "secret", body)
		assert.NotEmpty(t, v.Reason)
	}
	assert.Contains(t, Classify("not approved SECRET-TOKEN-123").Reason, `"not"`)
}

func TestDecideNewestDecisiveWins(t *testing.T) {
	tests := []struct {
		name    string
		bodies  []string
		want    Outcome
		wantIdx int
	}{
		{"none", nil, Undecided, -1},
		{"only chatter", []string{"thanks", "hm, let me look"}, Undecided, -1},
		{"later approval overrides earlier request", []string{"changes requested", "thanks for the fix, LGTM now"}, Approved, 1},
		{"later request overrides earlier approval", []string{"LGTM", "actually, needs work"}, ChangesRequested, 1},
		{"chatter after a decision supersedes it", []string{"approved", "thanks!"}, Undecided, -1},
		{"partial review after a request supersedes it", []string{"needs changes", "still reviewing the rest"}, Undecided, -1},
		{"retraction after approval", []string{"LGTM", "Not approved, ignore my LGTM."}, ChangesRequested, 1},
		{"approval after retraction", []string{"Not approved.", "Approved now."}, Approved, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, idx := Decide(tt.bodies)
			assert.Equal(t, tt.want, v.Outcome)
			assert.Equal(t, tt.wantIdx, idx)
		})
	}
}

func TestOutcomeValidity(t *testing.T) {
	assert.True(t, Approved.Decisive())
	assert.True(t, ChangesRequested.Decisive())
	assert.False(t, Undecided.Decisive())
	assert.True(t, Undecided.Valid())
	assert.False(t, Outcome("maybe").Valid())
	assert.False(t, Outcome("maybe").Decisive())
}
