package classify

import "strings"

// phrase is a run of whole words.
type phrase []string

func (p phrase) String() string { return strings.Join(p, " ") }

func phrases(list ...string) []phrase {
	out := make([]phrase, len(list))
	for i, s := range list {
		out[i] = strings.Fields(s)
	}
	return out
}

// approvals say the reviewer accepts the artifact.
var approvals = phrases(
	"approved", "approve", "approving", "approved-with-comments",
	"lgtm", "sgtm", "looks good", "look good", "looks great", "looks fine",
	"ship it", "shipit", "good to go", "good to merge", "ready to merge",
	"go ahead", "all good", "works for me", "+1",
)

// approvalEmoji approve by themselves.
var approvalEmoji = []string{"👍", "✅", "✔", "🚢", ":+1:", ":thumbsup:", ":shipit:", ":white_check_mark:", ":ship:"}

// changeRequests ask for the artifact to be revised; they win over any
// approval in the same reply.
var changeRequests = phrases(
	"changes requested", "change requested", "changes-requested", "request changes",
	"requesting changes", "requested changes", "please change", "needs changes",
	"need changes", "needs work", "needs more work", "needs rework", "needs a rework",
	"needs revision", "changes needed", "changes required", "not ready", "do not merge",
	"don't merge", "dont merge", "rejected", "reject", "rejecting", "disapprove",
	"disapproved", "blocker", "blockers", "must fix", "must be fixed", "unacceptable",
	"not acceptable", "nack",
)

// changeEmoji reject by themselves.
var changeEmoji = []string{"👎", ":-1:", ":thumbsdown:"}

// requestVerbs follow "please" (or "can you", "could you") in a request for
// a specific edit.
var requestVerbs = map[string]bool{
	"fix": true, "update": true, "rename": true, "add": true, "remove": true, "delete": true,
	"address": true, "revise": true, "rework": true, "clarify": true, "reword": true,
	"rewrite": true, "split": true, "move": true, "drop": true, "adjust": true, "expand": true,
	"document": true, "tighten": true, "simplify": true, "reconsider": true, "correct": true,
	"replace": true, "restore": true, "revert": true, "shorten": true, "extend": true,
}

// requestAsks open a polite request: "can you fix", "could you please add".
var requestAsks = phrases("can you", "could you", "would you", "can we", "could we")

// fixParticiples follow "should be", "needs to be", "has to be".
var fixParticiples = map[string]bool{
	"fixed": true, "changed": true, "updated": true, "removed": true, "renamed": true,
	"addressed": true, "revised": true, "rewritten": true, "corrected": true, "reverted": true,
}

// reservations turn an approval into an approval with comments.
var reservations = phrases(
	"nit", "nits", "nitpick", "nitpicks", "but", "however", "though", "although",
	"minor", "one thing", "one more thing", "small thing", "typo", "typos",
	"suggestion", "suggestions", "suggest", "consider", "optional", "follow-up",
	"follow up", "followup", "fyi", "with comments", "a comment", "one comment",
	"some comments", "few comments", "caveat", "caveats", "except",
)

// deferrals say the review is not finished yet: nothing in the reply is
// final.
var deferrals = phrases(
	"so far", "still reviewing", "still reading", "still looking", "still going through",
	"halfway", "half way", "more later", "more tomorrow", "more to come", "will continue",
	"continue tomorrow", "continuing tomorrow", "continue later", "finish later",
	"finish tomorrow", "come back to", "partial review", "first pass", "not done reviewing",
	"not finished", "haven't finished", "havent finished", "wip", "in progress",
	"to be continued", "stay tuned", "part 1", "not done yet",
)

// negators reverse the phrase that follows within three words.
var negators = map[string]bool{
	"not": true, "no": true, "never": true, "nope": true, "nothing": true, "without": true,
	"none": true, "neither": true, "nor": true, "cannot": true, "hardly": true,
	"dont": true, "cant": true, "wont": true, "isnt": true, "arent": true, "doesnt": true,
	"didnt": true, "havent": true, "hasnt": true, "wasnt": true, "werent": true,
	"shouldnt": true, "wouldnt": true, "couldnt": true, "aint": true,
}

// hedges before a phrase make it conditional or future: not a verdict now.
var hedges = map[string]bool{
	"once": true, "if": true, "when": true, "after": true, "until": true, "unless": true,
	"will": true, "i'll": true, "we'll": true, "would": true, "i'd": true, "we'd": true,
	"could": true, "should": true, "might": true, "may": true, "maybe": true,
	"probably": true, "hopefully": true,
}

// conditions after a phrase make it conditional: "approve once CI passes".
var conditions = map[string]bool{
	"once": true, "if": true, "when": true, "after": true, "until": true, "unless": true,
	"pending": true, "provided": true,
}

// negationWindow is how many words before a phrase a negator reaches.
const negationWindow = 3

func isNegator(w string) bool {
	return negators[w] || strings.HasSuffix(w, "n't")
}
