package classify

import "strings"

// pattern is a sequence of slots a clause must match completely. Each slot
// is a set of alternatives (word sequences); an optional slot may match
// nothing.
type pattern []slot

type slot struct {
	alts     [][]string
	optional bool
}

// maxCoreWords bounds a clause that can be a verdict: statements of
// approval, completion or sign-off are short, and anything longer is a
// remark, never a verdict.
const maxCoreWords = 16

// macros name alternative lists a pattern spec refers to as {NAME}.
var macros = buildMacros()

func buildMacros() map[string][]string {
	m := map[string][]string{
		"SUBJ":      {"i", "we"},
		"SUBJ_BE":   {"i'm", "im", "i am", "we're", "we are"},
		"SUBJ_HAVE": {"i've", "ive", "i have", "we've", "we have"},
		"ADV":       {"hereby", "fully", "officially", "happily", "gladly", "also", "now", "formally"},
		"DEG":       {"very", "really", "pretty", "quite", "all", "totally"},
		"BE":        {"is", "are", "'s"},
		"THING": {"this", "it", "that", "these", "all", "everything", "all of it", "it all",
			"this one", "that one"},
		"GOOD": {"good", "great", "fine", "solid", "excellent", "perfect", "correct", "right", "sound", "ok", "okay"},
		"TAIL": {"from me", "from my side", "on my side", "on my end", "from my end", "by me", "as is", "as-is",
			"to me", "to us", "for me", "for us", "from here", "from our side"},
	}
	var objs []string
	for _, n := range nouns {
		objs = append(objs, n, "the "+n, "this "+n, "these "+n, "that "+n, "your "+n, "the updated "+n,
			"the revised "+n, "the new "+n)
	}
	m["NOUN"] = objs
	m["OBJ"] = append(append([]string(nil), m["THING"]...), objs...)
	m["OBJ_BE"] = append(append([]string(nil), m["OBJ"]...), "it's", "its", "that's", "thats", "this's")
	return m
}

// nouns are what an approval may name: the artifact or the change. The
// names of particular artifacts (specificNouns) count only where the gate
// reviews that artifact.
var nouns = append([]string{"spec", "specs", "specification", "change", "changes", "pr", "pull request",
	"document", "doc", "docs", "artifact", "artifacts", "proposal", "work", "implementation", "update",
	"updates", "version", "revision", "draft", "approach", "brief", "briefing", "contribution", "goal", "fix",
	"patch"}, specificWords()...)

// specificNouns maps the name of a particular artifact to the artifact
// file it names.
var specificNouns = map[string]string{
	"requirements": "requirements.md", "requirement": "requirements.md", "bugfix": "bugfix.md",
	"design": "design.md", "testing plan": "testing-plan.md", "test plan": "testing-plan.md",
	"tasks": "tasks.md", "task list": "tasks.md", "tasks plan": "tasks.md", "plan": "tasks.md",
	"brainstorm": "brainstorm.md",
}

func specificWords() []string {
	out := make([]string, 0, len(specificNouns))
	for n := range specificNouns {
		out = append(out, n)
	}
	return out
}

// namesOther reports whether words name a particular artifact that is not
// one of subjects (any artifact may be named when subjects is empty).
func namesOther(words []string, subjects []string) bool {
	if len(subjects) == 0 {
		return false
	}
	for i := range words {
		for n := 2; n >= 1; n-- {
			if i+n > len(words) {
				continue
			}
			file, ok := specificNouns[strings.Join(words[i:i+n], " ")]
			if !ok {
				continue
			}
			named := false
			for _, s := range subjects {
				named = named || s == file
			}
			if !named {
				return true
			}
		}
	}
	return false
}

// compile builds a pattern from a spec: space-separated slots, each a word,
// "(a|b_c)" (one of; "_" joins words), "[...]" (optional) or "{MACRO}".
func compile(spec string) pattern {
	var p pattern
	for _, tok := range strings.Fields(spec) {
		s := slot{}
		if strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]") {
			s.optional = true
			tok = tok[1 : len(tok)-1]
		}
		tok = strings.TrimSuffix(strings.TrimPrefix(tok, "("), ")")
		for _, alt := range strings.Split(tok, "|") {
			if strings.HasPrefix(alt, "{") && strings.HasSuffix(alt, "}") {
				list, ok := macros[alt[1:len(alt)-1]]
				if !ok {
					panic("classify: unknown macro " + alt)
				}
				for _, m := range list {
					s.alts = append(s.alts, strings.Fields(m))
				}
				continue
			}
			s.alts = append(s.alts, strings.Split(alt, "_"))
		}
		p = append(p, s)
	}
	return p
}

func compileAll(specs ...string) []pattern {
	out := make([]pattern, len(specs))
	for i, s := range specs {
		out[i] = compile(s)
	}
	return out
}

// match reports whether words match p completely.
func (p pattern) match(words []string) bool { return p.from(0, words) }

func (p pattern) from(i int, w []string) bool {
	if i == len(p) {
		return len(w) == 0
	}
	s := p[i]
	if s.optional && p.from(i+1, w) {
		return true
	}
	for _, alt := range s.alts {
		if hasPrefix(w, alt) && p.from(i+1, w[len(alt):]) {
			return true
		}
	}
	return false
}

func hasPrefix(w, prefix []string) bool {
	if len(prefix) > len(w) {
		return false
	}
	for i := range prefix {
		if w[i] != prefix[i] {
			return false
		}
	}
	return true
}

// matchesAny reports whether words, less courtesy words before and after,
// match one of the patterns.
func matchesAny(words []string, ps []pattern) bool {
	if len(words) == 0 || len(words) > maxCoreWords {
		return false
	}
	for a := 0; a < len(words); a++ {
		if !isCourtesy(words[:a]) {
			break
		}
		for b := len(words); b > a; b-- {
			if !isCourtesy(words[b:]) {
				break
			}
			for _, p := range ps {
				if p.match(words[a:b]) {
					return true
				}
			}
		}
	}
	return false
}

// approvalCore are the statements of approval the reader accepts: in the
// author's own voice (first person, or the verdict word alone) or as an
// instruction to proceed, naming nothing but the artifact.
var approvalCore = compileAll(
	"{SUBJ} [{ADV}] approve [{ADV}] [{OBJ}] [{TAIL}]",
	"[{SUBJ_BE}] [{ADV}] approving [{OBJ}] [{TAIL}]",
	"[{SUBJ_HAVE}|{SUBJ}] [{ADV}] approved [{OBJ}] [{TAIL}]",
	"{OBJ_BE} [{BE}] [{ADV}] approved [{TAIL}]",
	"(lgtm|sgtm|+1|shipit|ship_it|lgtm_+1) [{TAIL}]",
	"[{OBJ_BE}] [{BE}] (good|ready|clear|cleared|ok|okay|fine) to (go|merge|ship|land|proceed) [{TAIL}]",
	"[{OBJ}] (looks|look|looking|reads) [{DEG}] {GOOD} [{TAIL}]",
	"[{SUBJ_BE}] (happy|fine|ok|okay|good) with [{OBJ}] [{TAIL}]",
	"(go_ahead|proceed|merge_it|please_proceed|please_go_ahead|you_may_proceed|you_can_proceed) [{TAIL}]",
)

// withComments is the explicit verdict "approved with comments".
var withComments = compileAll(
	"[{SUBJ_HAVE}|{SUBJ}] approved (with|w) (comments|comment|nits|notes|suggestions|minor_comments) [{TAIL}]",
	"approved-with-comments",
)

// courtesy are words and phrases that carry no verdict: thanks, praise,
// greetings, assent.
var courtesy = phraseList(
	"thanks", "thank you", "thank you so much", "thanks a lot", "many thanks", "thx", "ty", "cheers",
	"great", "nice", "good", "awesome", "excellent", "cool", "ok", "okay", "sure", "yes", "yep", "yup",
	"yeah", "indeed", "hi", "hello", "hey", "folks", "all", "everyone", "well done", "great work",
	"nice work", "good work", "great job", "nice job", "good job", "kudos", "congrats", "yay", "wow",
	"much appreciated", "appreciated", "thanks again", "thanks for this", "thanks for the work",
	"thanks for the update", "thanks for the fix", "thanks for the changes", "brilliant", "lovely",
	"neat", "sweet", "alright", "all right", "fantastic", "splendid", "superb", "agreed", "done",
	"fixed", "updated", "resolved", "addressed", "now", "again", "overall", "finally", "anyway",
	"too", "as well", "here", "there", "team", "please",
)

// isCourtesy reports words made only of courtesy phrases (none counts).
func isCourtesy(words []string) bool {
	// reach[i]: words[:i] splits into courtesy phrases.
	reach := make([]bool, len(words)+1)
	reach[0] = true
	for i := 0; i < len(words); i++ {
		if !reach[i] {
			continue
		}
		for _, c := range courtesy {
			if hasPrefix(words[i:], c) {
				reach[i+len(c)] = true
			}
		}
	}
	return reach[len(words)]
}

// reservationPhrases are multi-word reservations.
var reservationPhrases = phraseList("one thing", "one more thing", "small thing", "a comment", "one comment",
	"some comments", "few comments", "a few comments", "one question")

// reservations make an approval an approval with comments.
var reservations = set("nit", "nits", "nitpick", "nitpicks", "minor", "typo", "typos", "suggestion",
	"suggestions", "suggest", "consider", "optional", "optionally", "follow-up", "followup", "fyi",
	"caveat", "caveats", "non-blocking", "nonblocking", "tweak", "tweaks", "comment", "comments", "note",
	"notes", "remark", "remarks", "small", "cosmetic", "aside", "however", "but", "though", "although", "except")
