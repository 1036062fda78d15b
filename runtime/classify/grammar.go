package classify

import (
	"strings"
	"sync"
)

// pattern is a sequence of slots a clause must match completely. Each slot
// is a set of alternatives (word sequences); an optional slot may match
// nothing.
type pattern []slot

type slot struct {
	alts     [][]string
	optional bool
	// byFirst indexes alts by their first word.
	byFirst map[string][][]string
}

// maxCoreWords bounds a clause that can be a verdict: statements of
// approval, completion or sign-off are short, and anything longer is a
// remark, never a verdict.
const maxCoreWords = 16

// macros name alternative lists a pattern spec refers to as {NAME}.
var macros = sync.OnceValue(buildMacros)

func buildMacros() map[string][]string {
	m := map[string][]string{
		"SUBJ":      {"i", "we", "i personally", "i for one", "we all", "i too", "i also", "we also"},
		"SUBJ_BE":   {"i'm", "im", "i am", "we're", "we are"},
		"SUBJ_HAVE": {"i've", "ive", "i have", "we've", "we have"},
		"YOU_BE":    {"you're", "youre", "you are", "we're", "we are", "you're all", "we're all"},
		"ADV": {"hereby", "fully", "officially", "happily", "gladly", "also", "now", "formally", "therefore",
			"definitely", "absolutely", "certainly", "wholeheartedly", "enthusiastically", "just", "already",
			"again", "finally", "gladly", "totally", "really", "very much", "so", "thus", "hence", "100%",
			"fully and happily", "happily and fully"},
		"DEG": {"very", "really", "pretty", "quite", "all", "totally", "super", "so", "extremely",
			"exceptionally", "genuinely", "absolutely", "overall", "indeed", "great and", "good and"},
		"BE":    {"is", "are", "'s", "has been", "have been", "is now", "are now", "is hereby", "are hereby"},
		"THING": {"this", "it", "that", "these", "them", "they", "those", "all", "everything", "all of it", "it all", "this one", "that one", "both", "all of this", "all of that", "the whole thing", "everything here", "the lot", "all this", "this all", "it all", "this as well", "all of them"},
		"GOOD": {"good", "great", "fine", "solid", "excellent", "perfect", "correct", "right", "sound", "ok",
			"okay", "reasonable", "sensible", "clean", "complete", "awesome", "fantastic", "amazing", "nice",
			"lovely", "brilliant", "superb", "terrific", "spot on", "spot-on", "on point", "all good",
			"really good", "very good", "good overall", "great overall", "fine overall", "good now",
			"great now", "fine now", "right to me", "sane", "thorough", "comprehensive", "well thought out",
			"well-thought-out", "well done", "ready", "accurate"},
		"TAIL": {"from me", "from my side", "on my side", "on my end", "from my end", "by me", "as is", "as-is",
			"as written", "as it is", "as they are", "as it stands", "as they stand", "as proposed", "to me",
			"to us", "for me", "for us", "from here", "from our side", "from our end", "here", "now", "overall",
			"in full", "in its entirety", "again", "already", "today", "too", "as well", "100%", "fully",
			"wholeheartedly", "on this", "on it", "for this", "for this one", "then", "from me too",
			"on my part", "from my perspective", "from my point of view", "from the security side",
			"from a security perspective", "from the product side", "from a product perspective",
			"from the engineering side", "from an engineering perspective", "in principle and in detail",
			"with pleasure", "with thanks", "right away", "at last", "once more", "as is now", "without changes",
			"without further changes", "as discussed", "as agreed"},
		"NEXT": {"the implementation", "implementation", "the next step", "the next phase", "the next stage",
			"next steps", "the design", "design", "the tasks", "tasks", "the testing plan", "the test plan",
			"the rollout", "the build", "the work", "the merge", "merging", "implementing", "building",
			"coding", "the code", "the plan", "this plan", "it", "this", "that", "the rest", "breakdown",
			"the breakdown", "the task breakdown", "testing", "the pr", "the pull request", "the change",
			"the changes", "the migration", "the release", "shipping", "delivery", "the next one",
			"the requirements", "requirements"},
	}
	m["CONCERN"] = []string{"concern", "concerns", "objection", "objections", "blocker", "blockers",
		"blocking issues", "blocking issue", "issue", "issues", "problem", "problems", "complaint", "complaints",
		"comment", "comments", "nit", "nits", "note", "notes", "remark", "remarks", "question", "questions",
		"reservation", "reservations", "feedback", "worries", "worry", "red flags", "red flag", "showstopper",
		"showstoppers", "surprises", "changes", "suggestions", "findings", "nitpicks", "quibbles", "qualms",
		"edits", "corrections", "input", "issues at all", "blocking", "gaps", "risks", "objection at all",
		"further comments", "more comments", "other comments", "additional comments", "blocking comments",
		"thing", "things", "wrong", "missing", "problematic", "concerning", "off", "amiss", "else", "major",
		"blocking from me", "that blocks", "that would block", "that should block this", "to block this",
		"blocking this", "that needs changing", "that needs to change", "wrong with it", "wrong with this"}
	m["CQUANT"] = []string{"a few", "some", "a couple of", "a couple", "two", "three", "several", "one", "a",
		"a handful of", "a bunch of", "a number of", "few", "minor", "small"}
	m["CWHERE"] = []string{"inline", "below", "above", "in the doc", "on the doc", "in the pr", "attached",
		"in line", "in the thread", "for later", "for a follow-up", "to address later", "to consider", "noted below",
		"in the document", "on the pr", "in the review", "for the next round", "in the comments", "left inline",
		"left below"}
	m["CQUAL"] = []string{"more", "further", "other", "additional", "real", "major", "big", "remaining",
		"outstanding", "open", "new", "significant", "serious", "substantive", "obvious", "particular",
		"specific", "blocking", "major blocking", "critical", "glaring", "unresolved", "new blocking",
		"big or small"}
	m["CTAIL"] = []string{"from me", "here", "on my side", "from my side", "on my end", "from my end",
		"at all", "whatsoever", "that i can see", "that i see", "i can see", "for this", "with this",
		"with it", "on this", "about this", "left", "remaining", "needed", "required", "to raise", "to add",
		"to report", "from our side", "either", "this time", "this round", "on this round", "on this one",
		"with the requirements", "with the design", "with the doc", "with the spec", "in the doc",
		"in the requirements", "in the design", "in this version", "now", "anymore", "any more", "at this point",
		"in it", "in here", "really", "honestly"}
	var objs []string
	for _, n := range nouns {
		objs = append(objs, n)
		for _, det := range []string{"the", "this", "these", "that", "those", "your", "the updated", "the revised",
			"the new", "the latest", "the current", "the final", "this updated", "this revised", "this new",
			"the whole", "this whole", "the entire", "the proposed", "this proposed", "the overall", "our",
			"the rest of the", "all the", "all of the", "both"} {
			objs = append(objs, det+" "+n)
		}
	}
	m["NOUN"] = objs
	m["OBJ"] = append(append([]string(nil), m["THING"]...), objs...)
	m["OBJ_BE"] = append(append([]string(nil), m["OBJ"]...), "it's", "its", "that's", "thats", "this's",
		"everything's", "all's", "they're", "theyre")
	return m
}

// nouns are what an approval may name: the artifact or the change. The
// names of particular artifacts (specificNouns) count only where the gate
// reviews that artifact.
var nouns = append([]string{"spec", "specs", "specification", "specifications", "change", "changes", "pr",
	"pull request", "document", "documents", "doc", "docs", "artifact", "artifacts", "proposal", "proposals",
	"work", "implementation", "update", "updates", "version", "revision", "revisions", "draft", "approach",
	"brief", "briefing", "contribution", "goal", "fix", "patch", "write-up", "writeup", "one", "ones",
	"content", "contents", "rewrite", "iteration", "edits", "diff", "submission", "rfc", "adr", "plan",
	"plans", "direction", "scope", "solution", "version of the doc", "sections", "text", "wording",
	"changes here", "latest changes", "new version", "revised version", "final version", "updated version",
	"latest version", "current version", "second version", "v2", "round", "pass"}, specificWords()...)

// specificNouns maps the name of a particular artifact to the artifact
// file it names.
var specificNouns = map[string]string{
	"requirements": "requirements.md", "requirement": "requirements.md", "requirements doc": "requirements.md",
	"requirements document": "requirements.md", "reqs": "requirements.md", "bugfix": "bugfix.md",
	"bugfix plan": "bugfix.md", "bug fix": "bugfix.md", "design": "design.md", "design doc": "design.md",
	"design document": "design.md", "designs": "design.md", "testing plan": "testing-plan.md",
	"test plan": "testing-plan.md", "tests plan": "testing-plan.md", "testing-plan": "testing-plan.md",
	"tasks": "tasks.md", "task list": "tasks.md", "tasks plan": "tasks.md", "task plan": "tasks.md",
	"task breakdown": "tasks.md", "tasks breakdown": "tasks.md", "brainstorm": "brainstorm.md",
	"contribution plan": "contribution.md", "plan and approach": "contribution.md",
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
		for n := 3; n >= 1; n-- {
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
// a group "(a|b_c)" (one of; "_" joins the parts of an alternative, and a
// part may itself be a group or a macro), "[...]" (optional) or "{MACRO}".
func compile(spec string) pattern {
	var p pattern
	for _, tok := range strings.Fields(spec) {
		s := slot{}
		if strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]") {
			s.optional = true
			tok = tok[1 : len(tok)-1]
		}
		s.alts = expand(tok)
		s.byFirst = map[string][][]string{}
		for _, a := range s.alts {
			if len(a) > 0 {
				s.byFirst[a[0]] = append(s.byFirst[a[0]], a)
			}
		}
		p = append(p, s)
	}
	return p
}

// expand returns the word sequences a slot spec stands for.
func expand(spec string) [][]string {
	if strings.HasPrefix(spec, "(") && closing(spec, 0) == len(spec)-1 {
		spec = spec[1 : len(spec)-1]
	}
	var out [][]string
	for _, alt := range splitTop(spec, '|') {
		seqs := [][]string{nil}
		for _, part := range splitTop(alt, '_') {
			var opts [][]string
			switch {
			case strings.HasPrefix(part, "("):
				opts = expand(part)
			case strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}"):
				list, ok := macros()[part[1:len(part)-1]]
				if !ok {
					panic("classify: unknown macro " + part)
				}
				for _, m := range list {
					opts = append(opts, strings.Fields(m))
				}
			default:
				opts = [][]string{{part}}
			}
			var next [][]string
			for _, s := range seqs {
				for _, o := range opts {
					next = append(next, append(append([]string(nil), s...), o...))
				}
			}
			seqs = next
		}
		out = append(out, seqs...)
	}
	return out
}

// splitTop splits s at sep outside parentheses and braces.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// closing returns the index of the parenthesis closing the one at i.
func closing(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
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
	if len(w) == 0 {
		return false
	}
	for _, alt := range s.byFirst[w[0]] {
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

// matchesAny reports whether words match one of the patterns completely.
func matchesAny(words []string, ps []pattern) bool {
	if len(words) == 0 || len(words) > maxCoreWords {
		return false
	}
	for _, p := range ps {
		if p.match(words) {
			return true
		}
	}
	return false
}

// containsPhrase returns the first phrase of list found in words, at a word
// boundary, and its position.
func containsPhrase(words []string, list [][]string) (string, int, bool) {
	for i := range words {
		for _, p := range list {
			if hasPrefix(words[i:], p) {
				return strings.Join(p, " "), i, true
			}
		}
	}
	return "", -1, false
}

// approvalCore are the statements of approval the reader accepts: in the
// author's own voice (first person, the artifact as subject, or the verdict
// word alone) or as a go-ahead, naming nothing but the artifact, affirmative,
// unconditional.
var approvalCore = sync.OnceValue(func() []pattern {
	return compileAll(
		"{SUBJ} [{ADV}] [{ADV}] approve [{OBJ}] [{TAIL}] [{TAIL}]",
		"[{SUBJ_BE}] [{ADV}] approving [{OBJ}] [{TAIL}] [{TAIL}]",
		"[{SUBJ_HAVE}] [{ADV}] approved [{OBJ}] [{TAIL}] [{TAIL}]",
		"{OBJ_BE} [{BE}] [{ADV}] (approved|accepted) [{TAIL}] [{TAIL}]",
		"(lgtm|sgtm|+1|shipit|ship_it|lgtm_+1|accepted|approved|lgtm_approved|approved_lgtm|approved_+1|+1_approved) [{TAIL}] [{TAIL}]",
		"[{OBJ}] (looks|look|looking|reads|is_looking|are_looking|look_to_be|looks_to_be|all_look|both_look) [{DEG}] [{DEG}] {GOOD} [to_(merge|go|ship|proceed|land|implement)] [{TAIL}] [{TAIL}]",
		"[{SUBJ_BE}] [{DEG}] (happy|fine|ok|okay|glad|content|comfortable) (for|to_let|letting) {OBJ} (to_go_ahead|to_proceed|to_merge|to_ship|to_go_in|to_land|go_ahead|proceed|go_in|land) [{TAIL}]",
		"[{OBJ_BE}] [{BE}] [{DEG}] (good|ready|clear|cleared|ok|okay|fine|set|all_set) to (go|merge|ship|land|proceed|move_forward|move_on|implement|build|start|continue|lock|freeze) [{TAIL}] [{TAIL}]",
		"[{YOU_BE}] [{DEG}] (good|clear|cleared|ok|okay|fine|free) to (go|merge|ship|land|proceed|move_forward|move_on|implement|start|continue) [{TAIL}] [{TAIL}]",
		"[{OBJ_BE}] [{BE}] ready (to_merge|to_go|to_ship|to_proceed|to_move_on|to_move_forward|to_lock|for_implementation|for_the_next_phase|for_the_next_step|for_design|for_the_design|for_tasks|for_the_tasks|for_testing|for_the_testing_plan|for_merge|for_merging|to_implement|for_implementing) [{TAIL}] [{TAIL}]",
		"[{SUBJ_BE}] [{ADV}] [{DEG}] (happy|fine|ok|okay|good|comfortable|satisfied|content|pleased|all_good) with [{OBJ}] [{TAIL}] [{TAIL}]",
		"[{OBJ}] (works|work) (for|with) (me|us) [{TAIL}]",
		"(fine|ok|okay|good|alright|all_right|great|cool|all_good) (by|with|for) (me|us) [{TAIL}]",
		"all_good (from_me|from_my_side|on_my_side|on_my_end|from_my_end|from_our_side|here|by_me|with_me|to_me) [{TAIL}]",
		"(you|{OBJ}) (have|has) (my|our) [full] (approval|blessing|sign-off|signoff|go-ahead|ok|okay|+1|vote|thumbs_up|seal_of_approval|support) [{TAIL}]",
		"(my|our) (approval|+1|vote|blessing|sign-off|signoff) [(is|is_hereby|is_given)] [{TAIL}]",
		"(approval|sign-off|signoff) (granted|given|confirmed) [{TAIL}]",
		"consider (it|this|them|these|{NOUN}) (approved|accepted|signed_off) [{TAIL}]",
		"(marking|mark|marked) (it|this|{NOUN}) [as] approved [{TAIL}]",
		"thumbs_up [{TAIL}]",
		"{SUBJ} [{ADV}] (sign|signed) off [on_{OBJ}] [{TAIL}] [{TAIL}]",
		"[{SUBJ_BE}] [{ADV}] signing off [on_{OBJ}] [{TAIL}] [{TAIL}]",
		"[{SUBJ_HAVE}] [{ADV}] signed off [on_{OBJ}] [{TAIL}] [{TAIL}]",
		"[{SUBJ_BE}] [{ADV}] (happy|glad|pleased) to (approve|sign_off_on|sign_off|accept) [{OBJ}] [{TAIL}] [{TAIL}]",
		"{SUBJ} [{ADV}] (accept|accepted) [{OBJ}] [{TAIL}] [{TAIL}]",
	)
})

// goAheads are approvals said as a go-ahead: they may name what comes next
// ("go ahead with the implementation"), which is not another artifact
// under review.
var goAheads = sync.OnceValue(func() []pattern {
	return compileAll(
		"[please] [(you|we)_(can|may)] [please] [feel_free_to] (go_ahead|proceed|move_forward|move_on|continue|carry_on) [(with|to|on_to|onto)_{NEXT}] [{TAIL}] [{TAIL}]",
		"(let's|lets|let_us) (proceed|go_ahead|move_forward|move_on|go|do_it|do_this|ship_it|merge_it|go_with_it|go_with_this|roll|start|get_going|get_started|get_moving|keep_going) [(with|to|on_to|onto)_{NEXT}] [{TAIL}] [{TAIL}]",
		"(let's|lets|let_us) (go|move_forward|proceed) with {OBJ} [{TAIL}]",
		"(go_for_it|full_steam_ahead|merge_it|merge_away|ship_away|green_light|greenlit|green-lit|greenlighted|ship_it|send_it|full_speed_ahead) [{TAIL}] [{TAIL}]",
		"[you] [(have|got)] the_green_light [{TAIL}]",
		"(let's|lets|let_us) get (this|it|them|these) (shipped|merged|going|moving|started|done|in|landed|implemented|built) [{TAIL}]",
		"[please] [feel_free_to] (merge|ship|land) [(it|this)] [(when|whenever)_(ready|you're_ready|you_are_ready|green)] [{TAIL}]",
		"go_ahead_and (implement|build|merge|ship|proceed|start|continue|move_on|move_forward|lock_it|lock_this) [{NEXT}] [{TAIL}]",
	)
})

// withComments is the explicit verdict "approved with comments".
var withComments = sync.OnceValue(func() []pattern {
	return compileAll(
		"[{SUBJ_HAVE}|{SUBJ}] [{ADV}] (approved|approve|approving|lgtm|accepted) (with|w|w/) [{CQUANT}] [(minor|small|tiny|light|non-blocking|optional|cosmetic)] (comments|comment|nits|nit|notes|note|suggestions|suggestion|remarks|caveats|caveat|nitpicks|reservations|follow-ups|followups|tweaks|typos|questions) [{CWHERE}] [{TAIL}]",
		"[{SUBJ_HAVE}|{SUBJ}] [{ADV}] (approved|approve|approving|lgtm|accepted) (with|w|w/) [(a_few|some|minor|small|a_couple_of|two|three|a_couple|several|light|non-blocking|optional)] (comments|comment|nits|nit|notes|note|suggestions|suggestion|remarks|caveats|caveat|minor_comments|nitpicks|reservations|minor_reservations|follow-ups|followups|a_few_nits) [{TAIL}] [{TAIL}]",
		"approved-with-comments",
		"(approved|lgtm|approve) (but|with) (see|minor|small|a_few|some) (comments|nits|notes|suggestions) (below|above|inline)",
	)
})

// refusalCore are approvals refused in the reviewer's own voice, present
// and unconditional: "Not approved", "I can't approve this as written".
var refusalCore = sync.OnceValue(func() []pattern {
	return compileAll(
		"{SUBJ} [really|just|simply|still|definitely|certainly] (don't|do_not|dont|can't|cannot|cant|can_not|won't|will_not|wont|wouldn't|would_not|couldn't|could_not|do_not_and_will_not) [{ADV}] (approve|accept|sign_off_on|sign_off|lgtm) [{OBJ}] [{TAIL}] [(as_is|as_written|as_it_stands|in_this_state|in_its_current_state|like_this|in_this_form|in_the_current_form|in_its_current_form|as_proposed)]",
		"(can't|cannot|cant|can_not|won't|will_not|wont|couldn't|could_not) [{ADV}] (approve|accept|sign_off_on|sign_off|lgtm) [{OBJ}] [{TAIL}] [(as_is|as_written|as_it_stands|in_this_state|in_its_current_state|like_this|in_this_form|in_the_current_form|in_its_current_form|as_proposed)]",
		"[{SUBJ_BE}] [definitely|certainly] (not|unable_to|not_able_to|refusing_to|not_going_to|not_in_a_position_to) (approve|approving|accept|accepting|sign_off|sign_off_on|signing_off|signing_off_on) [{OBJ}] [{TAIL}] [(as_is|as_written|as_it_stands|in_this_state|in_its_current_state|like_this|in_this_form)]",
		"{SUBJ} (refuse|decline|must_decline|have_to_decline|need_to_decline|will_not|cannot) to (approve|accept|sign_off_on|sign_off) [{OBJ}] [{TAIL}] [(as_is|as_written|as_it_stands|in_this_state|in_its_current_state|like_this|in_this_form)]",
		"[{OBJ_BE}] [{BE}] [definitely|certainly|absolutely|clearly|just|simply|still|really] (not|far_from|nowhere_near|anything_but|not_at_all|not_even_close_to|definitely_not|certainly_not|clearly_not|absolutely_not) [{DEG}] (approved|approvable|acceptable|ready|ready_to_merge|ready_to_go|good_to_go|good_enough|lgtm|ok|okay|fine|good|correct|right|approved_by_me|sgtm|mergeable|shippable|ready_for_implementation|there) [{TAIL}] [{TAIL}]",
		"(not|no|definitely_not|certainly_not|absolutely_not) (lgtm|sgtm|+1|approval|approve|approved|ship_it|go|good_to_go) [{TAIL}] [{TAIL}]",
		"[{OBJ}] (doesn't|does_not|don't|do_not|doesnt|dont) (look|seem|read|sound) [{DEG}] {GOOD} [{TAIL}] [{TAIL}]",
		"[{OBJ}] (doesn't|does_not|don't|do_not|doesnt|dont) (work|pass) (for|with) (me|us) [{TAIL}]",
		"(approval|sign-off|signoff|lgtm) (denied|refused|withheld|rejected|declined) [{TAIL}]",
		"[{SUBJ_BE}] (withholding|not_giving|not_granting|holding_back) (my|our) (approval|sign-off|signoff|lgtm|+1) [{TAIL}]",
		"{SUBJ} (disapprove|reject|veto|must_reject|have_to_reject|object_to) [{OBJ}] [{TAIL}]",
		"(not_happy|unhappy|not_satisfied|dissatisfied|not_comfortable|uncomfortable) with [{OBJ}] [{TAIL}]",
		"[{SUBJ_BE}] [really|definitely|still] (not_happy|unhappy|not_satisfied|dissatisfied|not_comfortable|uncomfortable|not_ok|not_okay|not_fine) with [{OBJ}] [{TAIL}]",
		"{SUBJ} (can't|cannot|can_not|won't) (give|grant) (my|our|an|any) (approval|sign-off|signoff|+1|blessing) [{TAIL}] [(as_is|as_written|as_it_stands|in_this_state|in_its_current_state|like_this|in_this_form)]",
	)
})

// benignNegations are negated statements that are company, not a
// withholding: "no concerns", "nothing to add", "I don't see any issues".
var benignNegations = sync.OnceValue(func() []pattern {
	return compileAll(
		"[there_are|there_is|there's|theres|i_have|i've_got|ive_got|we_have|i_see|i_found|we_see|found|with|i_had|have|got|i've_found|i_can_see] (no|zero) [{CQUAL}] [{CQUAL}] {CONCERN} [{CTAIL}] [{CTAIL}]",
		"{SUBJ} (don't|do_not|didn't|did_not|dont|didnt|can't|cannot|cant|couldn't|could_not|couldnt) (have|see|find|spot|expect|foresee|think_of|come_up_with) (any|anything|a_single) [{CQUAL}] [{CQUAL}] [{CONCERN}] [{CTAIL}] [{CTAIL}]",
		"nothing [(else|further|more|major|blocking|wrong|missing|concerning|problematic|significant|substantive|big|serious|to_add|to_change|to_flag|to_report|to_fix|to_object_to|to_complain_about|stands_out|jumps_out|sticks_out|from_me|here|blocking_from_me|else_from_me|further_from_me|more_from_me|to_add_from_me|to_add_here|much_to_add|to_note)] [{CTAIL}] [{CTAIL}]",
		"(not_much|nothing_much|little) to (add|change|say|flag|report|note) [{CTAIL}]",
		"(no_rush|no_worries|no_problem|no_pressure|no_doubt|not_bad|not_too_shabby|can't_wait|cant_wait|can_not_wait|couldn't_be_happier|could_not_be_happier|no_complaints|no_complaints_here|no_notes|no_notes_from_me|no_further_questions|no_questions|no_questions_from_me|none_from_me|none_here|nope_none|none|n/a|na)",
		"(no|zero) (changes|further_changes|more_changes|edits|further_edits|corrections|additions) [(needed|required|requested|necessary|from_me|from_my_side|on_my_side|here|to_request|to_suggest)] [{CTAIL}]",
		"{SUBJ} (have|had) (nothing|no_more|no_further|no_other|no_additional) [(to_add|to_say|to_change|to_flag|comments|concerns|notes|feedback|questions|objections|issues|remarks|nits)] [{CTAIL}]",
		"{SUBJ} (don't|do_not|dont) (have|see) (any|anything) (more|further|else|other|additional) [{CONCERN}] [{CTAIL}]",
		"(nothing|none|no_issues|no_concerns|no_blockers|no_objections) (that_i_can_see|i_can_see|that_i_see|i_see|as_far_as_i_can_tell|afaict|i_could_find|that_i_could_find|i_found|that_i_found) [{CTAIL}]",
		"(don't|dont|do_not) see (any|anything) [{CQUAL}] [{CONCERN}] [{CTAIL}]",
		"(doesn't|does_not|doesnt) (need|require) (any|anything|further|more) [(changes|change|work|edits|else|more)] [{CTAIL}]",
		"{OBJ} (doesn't|does_not|doesnt) (need|require) (any|anything|further|more) [(changes|change|work|edits|else|more)] [{CTAIL}]",
		"(no|none) (of_my|of_the|of_these) (concerns|comments|nits|notes|remarks) (are|is) (blocking|blockers|a_blocker)",
		"[{OBJ_BE}] [{BE}] (not|isn't|isnt) [(exactly|quite|entirely)] (perfect|ideal|flawless|pretty|elegant|beautiful|glamorous|exciting|my_favorite|my_favourite|how_i'd_do_it|what_i'd_have_done|the_approach_i'd_take) [{TAIL}]",
	)
})
