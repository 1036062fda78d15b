package classify

import (
	"sort"
	"strings"
)

// The lexicon: small, closed word classes the grammar is written over. A
// word outside every class is content (a noun, a name, a number): it never
// approves, and it withholds only where the grammar says so.

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func phraseList(list ...string) [][]string {
	out := make([][]string, len(list))
	for i, s := range list {
		out[i] = strings.Fields(s)
	}
	return out
}

// negators turn a clause's polarity. Any word ending in "n't" is one too.
var negators = set("not", "no", "never", "none", "nothing", "nobody", "noone", "nowhere", "neither", "nor",
	"without", "cannot", "nope", "nah", "hardly", "barely", "scarcely", "dont", "cant", "wont", "isnt", "arent",
	"doesnt", "didnt", "havent", "hasnt", "hadnt", "wasnt", "werent", "shouldnt", "wouldnt", "couldnt", "mustnt",
	"neednt", "aint", "nay", "zero")

func isNegator(w string) bool { return negators[w] || strings.HasSuffix(w, "n't") }

// subordinators open a condition on what they qualify.
var subordinators = set("if", "once", "when", "whenever", "unless", "until", "till", "til", "provided", "providing",
	"assuming", "pending", "contingent", "conditional", "conditionally", "otherwise", "after", "whether")

// conditionPhrases are multi-word conditions.
var conditionPhrases = phraseList("as long as", "so long as", "in case", "on condition", "subject to", "only if",
	"as soon as", "depending on", "depends on", "dependent on", "conditional on", "contingent on", "given that",
	"on the condition")

// benignConditions are conditions that make what they qualify optional, not
// pending: "if you have time, add a diagram".
var benignConditions = phraseList("if you have time", "if you have a moment", "if you get a chance",
	"if you have a chance", "if you want", "if you like", "if you prefer", "if you feel like it", "if possible",
	"if it's easy", "if its easy", "if it is easy", "if needed", "if necessary", "if applicable", "if it helps",
	"if you think it helps", "if it makes sense", "if you agree", "when you get a chance", "when you have time",
	"when you have a moment", "if you need anything", "if you need anything else", "if you have questions",
	"if you have any questions", "if anything is unclear", "if you need me", "if you need help")

// whWords open a question even without a question mark.
var whWords = set("who", "what", "when", "where", "why", "how", "which", "whose", "whom")

// auxiliaries open a question when a subject follows them ("is this", "do you").
var auxiliaries = set("is", "are", "am", "was", "were", "do", "does", "did", "can", "could", "would", "will",
	"should", "shall", "may", "might", "have", "has", "had", "must", "isn't", "aren't", "don't", "doesn't",
	"didn't", "can't", "won't", "wouldn't", "shouldn't", "couldn't", "haven't", "hasn't", "wasn't", "weren't",
	"isnt", "arent", "dont", "doesnt", "didnt", "cant", "wont", "shouldnt", "couldnt", "wouldnt")

// subjectWords may follow an auxiliary that opens a question.
var subjectWords = set("i", "you", "we", "they", "he", "she", "it", "this", "that", "these", "those", "there",
	"the", "a", "an", "anyone", "someone", "everyone", "anybody", "somebody", "my", "your", "our", "their", "his",
	"her", "its", "all", "any", "everything", "anything", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9")

// modals make a clause hypothetical, future, or an obligation.
var (
	futureWords = set("will", "i'll", "we'll", "you'll", "he'll", "she'll", "they'll", "it'll", "ill", "gonna",
		"shall")
	hypothetical = set("would", "could", "might", "may", "i'd", "we'd", "you'd", "he'd", "she'd", "they'd",
		"it'd", "id", "wouldve", "would've", "couldve", "could've")
	obligations = set("should", "must", "ought", "shall", "needs", "need", "needed", "require", "requires",
		"required", "mandatory", "necessary")
)

// hedges make a statement uncertain or partial.
var hedges = set("think", "thinks", "guess", "suppose", "believe", "presume", "presumably", "probably",
	"possibly", "maybe", "perhaps", "likely", "unlikely", "hopefully", "seems", "seem", "seemed", "seemingly",
	"appears", "apparently", "mostly", "mainly", "largely", "almost", "nearly", "somewhat", "kinda", "sorta",
	"partly", "partially", "partial", "roughly", "broadly", "generally", "arguably", "unsure", "uncertain",
	"feel", "feels", "imo", "imho", "iiuc", "afaict", "afaik")

// pendingWords say the review or the decision is not finished.
var pendingWords = set("yet", "still", "so-far", "halfway", "half-way", "wip", "later", "tomorrow", "tonight",
	"soon", "shortly", "eventually", "tbc", "tbd", "todo", "preliminary", "provisional", "provisionally",
	"tentative", "tentatively", "initial", "skimmed", "skimming", "skim", "glanced", "glance", "continue",
	"continuing", "resume", "remaining", "rest", "remainder", "meanwhile", "pending", "awaiting", "await",
	"waiting", "wait", "eod", "monday", "tuesday", "wednesday", "thursday", "friday", "weekend", "afterwards",
	"reviewing", "reading", "looking", "checking", "digesting", "unfinished", "incomplete-review")

// pendingPhrases are multi-word pending qualifiers.
var pendingPhrases = phraseList("so far", "for now", "first pass", "first look", "first glance", "at a glance",
	"in progress", "more to come", "stay tuned", "to be continued", "half way", "going to", "at first sight",
	"on first read", "on a first read", "quick look", "quick pass", "quick skim", "need more time",
	"needs more time", "more time", "give me", "let me", "on my list", "get back", "circle back", "come back",
	"next week", "later today", "in a bit", "in a moment", "after lunch", "hold on", "hang on", "not yet",
	"not done", "not finished", "haven't finished", "have not finished", "haven't read", "have not read",
	"haven't looked", "have not looked", "haven't had", "have not had", "haven't gotten", "yet to",
	"haven't tested", "have not tested", "haven't checked", "have not checked", "haven't verified",
	"haven't run", "didn't test", "didn't check", "didn't read", "didn't review", "didn't run", "did not read",
	"did not test", "did not review", "didnt read", "didnt test", "havent tested", "havent checked",
	"take a look", "take another look", "have a look", "deeper look", "closer look", "deeper read",
	"proper review", "full review", "second pass", "another pass", "one more pass", "sleep on it",
	"for the moment", "at the moment", "for today", "up to section", "up to page", "up to r")

// reportVerbs put someone else's words in the reply.
var reportVerbs = set("says", "said", "say", "saying", "told", "tells", "tell", "according", "per", "via",
	"reportedly", "heard", "wrote", "writes", "quote", "quoted", "quoting", "mentioned", "mentions", "claims",
	"claimed", "claiming", "relayed", "relaying", "relay", "forwarding", "forwarded", "forward", "behalf",
	"reported", "reports", "confirmed", "confirms", "asked", "asks", "stated", "states", "noted", "notes",
	"approves", "signs", "copying", "copied", "pasting", "pasted", "cross-posting", "crossposting",
	"paraphrasing", "summarizing", "summarising", "speaking", "representing")

// thirdParty are subjects that are not the reviewer.
var thirdParty = set("he", "she", "they", "them", "his", "her", "hers", "their", "theirs", "someone", "somebody",
	"anyone", "anybody", "others", "other", "everybody", "nobody", "team", "legal", "security", "qa", "ops",
	"management", "manager", "board", "committee", "lead", "leads", "pm", "product", "owner", "owners",
	"architects", "architect", "reviewer", "reviewers", "ci", "bot", "cto", "ceo", "dpo", "compliance",
	"customer", "customers", "client", "stakeholders", "stakeholder", "infra", "sre", "devops", "design-team",
	"folks")

// retractionPhrases take back what the reply, or an earlier one, said.
var retractionPhrases = phraseList("scratch that", "strike that", "never mind", "nevermind", "nvm", "jk", "j/k",
	"just kidding", "kidding", "joking", "on second thought", "on second thoughts", "second thoughts",
	"actually no", "actually not", "wait no", "hmm no", "changed my mind", "change my mind", "change of plan",
	"forget that", "forget what i said", "belay that", "unapprove", "unapproving", "unapproved", "hold off",
	"hold it", "not so fast", "spoke too soon", "take it back", "take that back", "taking it back",
	"taking that back", "took it back", "disregard that", "ignore that", "ignore this", "disregard this")

// retractVerbs take back a verdict when their object is one ("I retract my
// approval", "disregard the LGTM above"), or when they stand alone
// ("Retracted."); "revoke a token" is not one.
var retractVerbs = set("retract", "retracting", "retracted", "revoke", "revoking", "revoked", "withdraw",
	"withdrawing", "withdrawn", "withdrew", "rescind", "rescinding", "rescinded", "undo", "undoing", "cancel",
	"cancelling", "canceling", "cancelled", "canceled", "ignore", "ignoring", "disregard", "disregarding",
	"take", "taking", "took", "scratch", "strike", "drop", "dropping", "pull", "pulling", "reverse", "reversing",
	"reconsidering", "reconsider")

// verdictNouns are what a retraction takes back.
var verdictNouns = set("approval", "approvals", "lgtm", "+1", "sign-off", "signoff", "review", "comment",
	"comments", "reply", "ok", "okay", "verdict", "decision", "go-ahead", "blessing", "vote", "above", "message",
	"post", "thumbs", "ship", "that", "this", "it", "last", "previous", "earlier", "first")

// sarcasmPhrases say the opposite of what the words say.
var sarcasmPhrases = phraseList("/s", "yeah right", "yeah sure", "oh sure", "oh great", "oh yeah", "oh wonderful",
	"oh joy", "oh brilliant", "as if", "said no one", "said nobody", "said no one ever", "not really", "lol",
	"lmao", "rofl", "haha", "hahaha", "hehe", "what could go wrong", "what could possibly go wrong",
	"who needs", "i guess", "sure thing buddy", "great another", "wow another", "yay another", "another one",
	"in my dreams", "in your dreams", "dream on", "april fools", "opposite day", "not!", "sarcasm", "sarcastic",
	"ironic", "irony", "whatever", "or whatever", "if you say so", "sure jan", "eye roll", "eyeroll")

// approvalVocabulary is every word an approval is said with: a clause that
// holds one and is not, in full, an approval construction talks about an
// approval without giving it.
var approvalVocabulary = set("approve", "approved", "approves", "approving", "approval", "approvals", "lgtm",
	"sgtm", "+1", "ship", "shipit", "shipping", "sign-off", "signoff", "sign", "signed", "signing", "good",
	"great", "fine", "ok", "okay", "ready", "proceed", "ahead", "merge", "accept", "accepted", "accepting",
	"happy", "greenlight", "green-light", "blessing", "go-ahead", "lgtm!", "okayed", "ok'd", "okd", "thumbs",
	"cleared", "clear", "works", "solid", "perfect", "correct", "right", "sound", "excellent")

// changePhrases ask for the artifact to be revised; the negation a phrase
// carries itself ("not ready", "do not merge") is part of it.
var changePhrases = phraseList(
	"changes requested", "change requested", "changes-requested", "request changes", "requesting changes",
	"requested changes", "request a change", "request some changes", "needs changes", "need changes",
	"needs some changes", "needs work", "needs more work", "needs some work", "needs rework", "needs a rework",
	"needs revision", "needs revisions", "needs another pass", "needs another round", "needs improvement",
	"needs a bit more work", "needs a little more work", "changes needed", "changes required",
	"changes necessary", "more work needed", "more work required", "not ready", "not ready yet",
	"not there yet", "do not merge", "don't merge", "dont merge", "rejected", "reject", "rejecting",
	"disapprove", "disapproved", "disapproving", "must fix", "must be fixed", "must change", "please revise",
	"please rework", "please fix", "please update", "please change", "send it back", "sending it back",
	"sending this back", "send this back", "back to the drawing board", "not acceptable", "unacceptable",
	"nack", "-1", "not good enough", "not sufficient", "insufficient", "fix this", "fix it", "redo",
	"needs fixing", "needs to be fixed", "needs to be redone", "needs to be rewritten", "needs to change",
	"not approvable", "cannot be approved", "can't be approved", "can not be approved")

// strongChangeVerbs are verbs of an edit to the artifact that, first in a
// clause, read as an instruction ("Change R6 …", "Rewrite section 3 …").
var strongChangeVerbs = set("add", "remove", "delete", "drop", "change", "update", "fix", "rename", "rewrite",
	"rework", "revise", "reword", "rephrase", "clarify", "split", "move", "replace", "correct", "adjust",
	"expand", "extend", "shorten", "simplify", "specify", "define", "mention", "include", "cover", "address",
	"handle", "explain", "restructure", "reorder", "reorganize", "reorganise", "consolidate", "elaborate",
	"justify", "quantify", "describe", "introduce", "provide", "revert", "avoid", "use", "make", "ensure",
	"enforce", "reconsider", "rethink", "redo", "redesign", "rewire", "clean", "cleanup", "split", "merge-in",
	"spell", "flesh", "break", "move", "reduce", "increase", "decrease", "raise", "lower", "bump", "align",
	"reconcile", "tighten", "soften", "strengthen", "cite", "capture", "reflect", "narrow", "widen", "drop",
	"generalize", "generalise", "streamline", "write", "insert", "append", "prepend", "combine", "extract",
	"retitle", "relabel", "renumber", "annotate", "illustrate", "refine", "redraw", "describe", "detail",
	"document", "list", "state", "specify", "limit", "cap", "encrypt", "sanitize", "sanitise", "harden",
	"deprecate", "migrate", "rerun", "re-run", "regenerate", "recompute", "recalculate", "convert",
	"translate", "standardize", "standardise", "normalize", "normalise", "unify", "dedupe", "deduplicate",
	"overhaul", "nuke", "scrap", "ditch", "axe", "toss", "trim", "cut", "pare", "tone", "beef", "swap", "flip",
	"polish", "proofread", "tweak", "edit", "amend", "modify", "alter", "highlight", "emphasize", "emphasise",
	"separate", "inline", "hide", "expose", "link", "reference", "note", "format", "reformat", "diagram",
	"draw", "set", "put", "keep", "check", "verify", "test", "double-check", "measure", "benchmark",
	"estimate", "pin", "version", "port", "fill", "complete", "finish", "secure", "guard", "escape", "call",
	"lay", "outline", "sketch", "spec", "model", "stress", "point", "flag", "scope", "resolve", "tidy", "merge",
	"switch", "re-scope", "rescope", "descope", "de-scope", "prioritize", "prioritise", "postpone", "defer",
	"fold", "collapse", "unpack", "expand", "spell", "shorten", "lengthen", "number", "sort", "group",
	"reword", "retitle")

// weakChangeVerbs are change verbs that are nouns or adjectives as often as
// verbs ("document", "list", "test"): first in a clause they read as an
// instruction only when an object follows them ("Document the retry
// policy", not "Document looks good").
var weakChangeVerbs = set("document", "list", "state", "limit", "cap", "note", "format", "diagram", "draw",
	"set", "put", "keep", "check", "test", "measure", "benchmark", "estimate", "pin", "version", "port", "fill",
	"complete", "finish", "secure", "guard", "escape", "call", "link", "reference", "detail", "cut", "trim",
	"tone", "beef", "pare", "flip", "swap", "toss", "axe", "scrap", "ditch", "nuke", "polish", "edit",
	"separate", "inline", "hide", "expose", "highlight", "outline", "sketch", "spec", "model", "stress",
	"point", "flag", "scope", "lay", "break", "spell", "flesh", "clean")

// changeAsks open a polite request for an edit: "could you add …?"
var changeAsks = longestFirst(phraseList("can you", "could you", "would you", "can we", "could we", "will you",
	"would you mind", "do you mind", "mind", "could you please", "can you please", "would you please",
	"please could you", "please can you", "any chance you could", "any chance we could", "can u", "could u"))

// directives open an instruction to edit: "please …", "make sure …".
var directives = longestFirst(phraseList("please", "pls", "plz", "kindly", "make sure", "make sure to", "be sure to",
	"don't forget to", "do not forget to", "dont forget to", "remember to", "you should", "you must",
	"you need to", "we should", "we must", "we need to", "let's", "lets", "let us", "we have to",
	"you have to", "i need you to", "i'd like you to", "i want you to", "also", "just", "then", "and",
	"first", "so", "and then", "still", "but", "now", "ideally", "really", "definitely", "absolutely"))

// softDirectives open a suggestion of an edit: "we can tidy up …",
// "maybe add …".
var softDirectives = longestFirst(phraseList("we can", "you can", "we could", "you could", "you may", "we may",
	"you might", "we might", "maybe", "perhaps", "possibly", "optionally", "ideally", "maybe we could",
	"maybe you could", "maybe we can", "maybe you can", "perhaps we could", "perhaps you could", "might want to",
	"you might want to", "you may want to", "we might want to", "may want to", "consider", "i'd", "i would",
	"i'd probably", "could", "might", "worth", "it's worth", "it might be worth", "it may be worth",
	"feel free to", "you could also", "we could also", "if you want", "if you like"))

// longestFirst orders phrases so that the longest is tried first.
func longestFirst(list [][]string) [][]string {
	sort.SliceStable(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	return list
}

// defectWords say something in the artifact is wrong or missing.
var defectWords = set("wrong", "incorrect", "inaccurate", "missing", "unclear", "ambiguous", "vague",
	"confusing", "confused", "inconsistent", "incomplete", "outdated", "stale", "broken", "buggy", "misleading",
	"contradictory", "contradicts", "contradict", "contradiction", "contradictions", "redundant", "duplicated",
	"duplicate", "duplicates", "inadequate", "insufficient", "unsafe", "insecure", "risky", "flawed",
	"problematic", "empty", "blank", "undefined", "unspecified", "untestable", "unrealistic", "impossible",
	"infeasible", "unworkable", "useless", "pointless", "poor", "weak", "sloppy", "messy", "bad", "terrible",
	"awful", "horrible", "lacking", "lacks", "lack", "overcomplicated", "underspecified", "overengineered",
	"over-engineered", "hand-wavy", "handwavy", "wishy-washy", "typo", "typos", "error", "errors", "mistake",
	"mistakes", "bug", "bugs", "gap", "gaps", "hole", "holes", "flaw", "flaws", "inconsistency",
	"inconsistencies", "regression", "conflict", "conflicts", "conflicting", "misses", "missed", "omits",
	"omitted", "omission", "ignores", "ignored", "skips", "skipped", "breaks", "violates", "violation",
	"overlaps", "overlap", "overlapping", "forgot", "forgets", "forgotten", "fails", "falls", "overkill",
	"premature", "overly", "disagree", "disagrees", "disagreed", "objection",
	"objections", "concern", "concerns", "concerned", "worried", "worry", "worries", "problem", "problems",
	"issue", "issues", "blocker", "blockers", "blocking", "nit", "nits", "nitpick", "confusingly", "dislike",
	"hate", "odd", "weird", "strange", "questionable", "doubtful", "dubious", "unconvinced",
	"unjustified", "unsupported", "unmotivated", "out-of-date", "mess", "mismatch", "mismatched", "misnamed",
	"misspelled", "misspelt", "recieve", "untested", "unhandled", "uncovered", "undocumented", "unbounded",
	"leaks", "leak", "leaking", "exposes", "hardcoded", "hard-coded", "magic", "arbitrary", "excessive",
	"overdue", "silent", "thin", "sparse", "shallow", "superficial", "unconvincing", "skimpy", "barebones",
	"bare-bones", "sketchy", "flaky", "fragile", "brittle", "expensive", "costly", "slow", "wasteful", "bloated",
	"convoluted", "overcomplicated", "unnecessary", "unneeded", "obsolete", "deprecated", "legacy", "unclear")

// coverVerbs, negated, say the artifact leaves something out ("doesn't
// cover", "does not address").
var coverVerbs = set("cover", "covers", "address", "addresses", "mention", "mentions", "handle", "handles",
	"specify", "specifies", "explain", "explains", "include", "includes", "say", "says", "define", "defines",
	"describe", "describes", "match", "matches", "work", "works", "scale", "scales", "add", "make", "account",
	"consider", "considers", "reflect", "reflects", "answer", "answers", "meet", "meets", "satisfy",
	"satisfies", "see", "understand", "agree", "like", "follow", "buy", "think", "believe", "get", "hold",
	"apply", "fit", "fits", "compile", "test", "tested", "covered", "addressed", "mentioned", "handled",
	"specified", "explained", "included", "defined", "described", "clear", "right", "correct", "accurate",
	"complete", "consistent", "testable", "feasible", "realistic", "sufficient", "enough", "defined",
	"documented", "justified", "obvious", "convinced", "ok", "okay", "good", "great", "fine", "ready",
	"valid", "true", "possible", "there", "safe", "secure", "acceptable", "adequate")

// softWords make a remark a suggestion, not a demand.
var softPhrases = phraseList("wouldn't hurt", "would not hurt", "wouldnt hurt", "could", "might", "may want", "might want", "consider", "considering", "maybe",
	"perhaps", "optionally", "optional", "would be nice", "would be good", "would be great", "would be better",
	"it'd be nice", "itd be nice", "nice to have", "i'd suggest", "i would suggest", "i'd recommend",
	"i would recommend", "i'd prefer", "i would prefer", "i'd add", "i would add", "i'd love", "i'd like",
	"i would like", "i would love", "worth considering", "worth mentioning", "worth adding", "suggest",
	"suggestion", "suggestions", "recommend", "recommendation", "one idea", "an idea", "a thought", "one thought",
	"just an idea", "wonder if",
	"feel free", "up to you", "your call", "take it or leave it", "food for thought", "just a thought",
	"not a big deal", "no big deal", "if you like", "if you want", "if you prefer")

// laterPhrases mark a remark as not blocking this approval.
var laterPhrases = phraseList("later", "follow-up", "followup", "follow up", "future", "next time",
	"next iteration", "next version", "next round", "next revision", "next pass", "separate ticket",
	"separate issue", "separate pr", "separate pull request", "separate change", "another ticket",
	"another issue", "another pr", "in v2", "v2", "down the road", "at some point", "eventually",
	"not blocking", "non-blocking", "nonblocking", "non blocking", "no action needed", "no action required",
	"no need to change", "no need to fix", "no need to update", "no need to address", "no need to act",
	"nothing to do now", "for the record", "fyi", "nit", "nits", "nitpick", "nitpicks", "nitpicking",
	"optional", "no action", "can wait", "not urgent", "low priority", "when convenient", "in a follow-up",
	"out of curiosity", "just curious", "curious", "for my understanding", "for my own understanding",
	"no need to answer", "no need to reply", "minor", "cosmetic", "tiny", "small", "trivial", "as an aside",
	"side note", "sidenote", "ps", "p.s", "feel free to ignore", "ignore if you disagree", "take it or leave it",
	"up to you", "your call", "not a blocker", "no blocker", "not required", "see my comments", "see comments",
	"see my notes", "see inline", "see the inline comments", "see inline comments", "see below", "see above",
	"see my inline comments", "comments inline", "notes inline", "see my review comments", "see the comments")

// concernNouns are what a reviewer says there are none of ("no concerns"):
// negated, they are benign company.
var concernNouns = set("concern", "concerns", "objection", "objections", "blocker", "blockers", "issue",
	"issues", "problem", "problems", "complaint", "complaints", "comment", "comments", "nit", "nits", "note",
	"notes", "remark", "remarks", "question", "questions", "reservation", "reservations", "feedback", "worries",
	"worry", "red", "flags", "flag", "showstopper", "showstoppers", "surprises", "changes", "change",
	"suggestions", "suggestion", "notes", "findings", "finding", "nitpicks", "quibbles", "quibble",
	"qualms", "blocking", "action", "input", "thoughts", "additions", "edits", "corrections", "further",
	"more", "other", "additional", "real", "major", "big", "remaining", "outstanding", "open", "new", "any",
	"substantive", "serious", "significant", "obvious", "blocking", "particular", "specific")

// courtesy words and phrases carry no verdict: thanks, praise, greetings,
// assent, sign-offs. Around an approval they are benign company.
var courtesyPhrases = phraseList(
	"thanks", "thank you", "thank you so much", "thanks so much", "thanks a lot", "many thanks", "thx", "ty",
	"tyvm", "cheers", "great", "nice", "good", "awesome", "excellent", "cool", "ok", "okay", "sure", "yes", "yep",
	"yup", "yeah", "indeed", "hi", "hello", "hey", "folks", "all", "everyone", "team", "y'all", "well done",
	"great work", "nice work", "good work", "great job", "nice job", "good job", "good stuff", "great stuff",
	"nice stuff", "kudos", "congrats", "congratulations", "bravo", "yay", "wow", "woohoo", "much appreciated",
	"appreciated", "thanks again", "brilliant", "lovely", "neat", "sweet", "alright", "all right", "fantastic",
	"splendid", "superb", "agreed", "done", "fixed", "updated", "resolved", "addressed", "now", "again",
	"overall", "finally", "anyway", "anyways", "too", "as well", "here", "there", "perfect",
	"sounds good", "sounds great", "sounds fine", "sounds good to me", "sounds great to me", "sounds right",
	"amazing", "impressive", "beautiful", "wonderful", "outstanding", "stellar", "top notch", "top-notch",
	"love it", "love this", "loving it", "nicely done", "very nice", "really nice", "very good", "really good",
	"so good", "very well done", "great effort", "great writeup", "great write-up", "nice writeup",
	"nice write-up", "great doc", "great document", "nice doc", "thorough", "very thorough", "great read",
	"good read", "clean", "very clean", "crisp", "clear", "very clear", "well written", "well-written",
	"nicely written", "easy to follow", "easy to read", "reviewed", "read it", "read through", "read it all",
	"read through it", "read through it all", "read the whole thing", "went through it", "i read it",
	"i reviewed it", "reviewed it", "have reviewed", "i've reviewed", "i have reviewed", "checked",
	"i checked", "double-checked", "all good", "so", "well", "ok so", "alrighty", "morning", "good morning",
	"afternoon", "good afternoon", "evening", "good evening", "dear", "greetings", "hiya", "howdy", "best",
	"regards", "best regards", "kind regards", "warm regards", "br", "sincerely", "cheers all", "ttyl",
	"have a good one", "have a nice day", "have a great day", "have a good weekend", "have a great weekend",
	"happy friday", "happy monday", "looks like", "honestly", "frankly", "personally", "for me", "from me",
	"from my side", "on my side", "on my end", "from my end", "my side", "then", "and", "also", "just",
	"very", "really", "totally", "definitely", "absolutely", "certainly", "of course", "sure thing",
	"no problem", "no worries", "no rush", "no pressure", "no doubt", "not bad", "can't wait", "cant wait",
	"couldn't be happier", "could not be happier", "ready", "yes please", "+100", "100%", "100",
)

// closings end a reply like a letter: a name may follow them.
var closings = phraseList("thanks", "thank you", "thx", "ty", "cheers", "best", "best regards", "kind regards",
	"warm regards", "regards", "br", "sincerely", "warmly", "all the best", "many thanks", "thanks again",
	"take care", "--", "-", "cheers all")

// verdictLabels introduce the reviewer's own verdict ("Status: approved").
var verdictLabels = set("status", "verdict", "decision", "review", "result", "outcome", "overall",
	"summary", "tldr", "tl;dr", "tl dr", "conclusion", "bottom line", "my verdict", "my review",
	"my decision", "final verdict", "final decision", "final", "review status", "review result",
	"review outcome", "my take", "in short", "short version", "update", "edit", "ps", "p.s", "verdict from me",
	"from me", "answer", "response", "reply", "approval", "approval status", "my answer", "re")

// blockingLabels introduce a remark that must be addressed now.
var blockingLabels = set("blocking", "blocker", "blockers", "missing", "issue", "issues", "problem", "problems",
	"bug", "bugs", "must fix", "must-fix", "required", "requirement", "todo", "to do", "concern", "concerns",
	"changes requested", "changes", "change", "change request", "request", "requests", "fix", "fixes",
	"needs", "needed", "action", "action items", "action item", "major", "critical", "error", "errors",
	"mistake", "gap", "gaps", "risk", "risks", "wrong", "incorrect", "typo", "typos", "correction",
	"corrections", "showstopper", "one blocker", "blocker found", "major issue", "major issues")

// laterLabels introduce a remark that does not block: nits, suggestions,
// notes for later.
var laterLabels = set("with comments", "nit", "nits", "nitpick", "nitpicks", "minor", "optional", "suggestion", "suggestions",
	"non-blocking", "nonblocking", "not blocking", "fyi", "note", "notes", "aside", "for later", "later",
	"follow-up", "followup", "follow up", "future", "small thing", "small things", "thought", "thoughts",
	"praise", "kudos", "side note", "sidenote", "ps", "p.s", "idea", "ideas", "polish", "cosmetic",
	"nice to have", "question", "questions", "curious", "out of curiosity", "tiny nit", "small nit",
	"one nit", "a nit", "minor nit", "minor nits", "nit for later", "nits for later", "nits non-blocking",
	"nits (non-blocking)", "quibble", "quibbles", "trivial", "for the future", "future work", "next time",
	"optional nits", "non-blocking nits", "nonblocking nits", "minor suggestion", "small suggestion",
	"suggestion for next time", "small suggestion for next time")
