package classify

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// approvalWords are the words every accepted approval contains; a reply
// holding none of them (once reduced to its author's own folded words) must
// never approve.
var approvalWords = []string{"approv", "lgtm", "sgtm", "+1", "ship", "good", "great", "fine", "solid", "excellent",
	"perfect", "correct", "right", "sound", "ok", "ready", "clear", "proceed", "ahead", "merge", "happy", "forward",
	"sign", "accept", "works", "go", "move", "blessing", "thumbs", "green", "comfortable", "satisfied", "content",
	"pleased", "reasonable", "sensible", "clean", "complete", "awesome", "fantastic", "amazing", "nice", "lovely",
	"brilliant", "superb", "terrific", "spot", "point", "sane", "thorough", "comprehensive", "done", "accurate",
	"set", "start", "continue", "carry", "roll", "land", "send"}

var doneWords = []string{"done", "finish", "complete", "set", "all", "else", "more", "further", "close", "work",
	"task"}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// mutations turn a reply into one that must decide no more than it did:
// its text quoted, coded, struck or hidden; approval words added only
// where they are not the author's own; a negation added before a word or
// after the reply; look-alike letters; invisible or unreadable characters.
// None of them may turn a reply that does not approve into an approval.
var mutations = []func(body string, at int) string{
	func(b string, _ int) string { return "> " + strings.ReplaceAll(b, "\n", "\n> ") },
	func(b string, _ int) string { return "```\n" + b + "\n```" },
	func(b string, _ int) string { return "<details>\n" + b + "\n</details>" },
	func(b string, _ int) string { return "<!-- " + b + " -->" },
	func(b string, _ int) string { return "<del>" + b + "</del>" },
	func(b string, at int) string { return insertLine(b, at, "> Approved, LGTM, ship it") },
	func(b string, at int) string { return insertLine(b, at, "```\napproved\n```") },
	func(b string, at int) string { return insertWord(b, at, "`LGTM`") },
	func(b string, at int) string { return insertWord(b, at, "~~approved~~") },
	func(b string, at int) string { return insertWord(b, at, "<!-- approved -->") },
	func(b string, at int) string { return insertLine(b, at, "[//]: # (Approved)") },
	func(b string, at int) string { return insertWord(b, at, "not") },
	func(b string, at int) string { return insertWord(b, at, "never") },
	func(b string, at int) string { return insertWord(b, at, "no") },
	func(b string, _ int) string { return b + "\n\nNot." },
	func(b string, _ int) string { return b + " — NOT" },
	func(b string, _ int) string { return "Not approved. " + b },
	func(b string, at int) string { return lookalike(b, at) },
	func(b string, at int) string { return insertRune(b, at, '\u200b') },
	func(b string, at int) string { return insertRune(b, at, '\u00ad') },
	func(b string, at int) string { return insertRune(b, at, '\U000e0020') },
	func(b string, at int) string { return insertRune(b, at, '\u202e') },
	func(b string, at int) string { return insertRune(b, at, '\u2066') },
	func(b string, at int) string { return insertRune(b, at, '\x1b') },
}

// boundaries returns the byte offsets of b where a word or a line may be
// inserted.
func boundaries(b string, sep func(rune) bool) []int {
	out := []int{0}
	for i, r := range b {
		if sep(r) {
			out = append(out, i, i+utf8.RuneLen(r))
		}
	}
	return append(out, len(b))
}

func pick(list []int, at int) int { return list[at%len(list)] }

func insertLine(b string, at int, line string) string {
	i := pick(boundaries(b, func(r rune) bool { return r == '\n' }), at)
	return b[:i] + "\n\n" + line + "\n\n" + b[i:]
}

func insertWord(b string, at int, word string) string {
	i := pick(boundaries(b, func(r rune) bool { return r == ' ' || r == '\n' }), at)
	return b[:i] + " " + word + " " + b[i:]
}

func insertRune(b string, at int, r rune) string {
	var cut []int
	for i := range b {
		cut = append(cut, i)
	}
	cut = append(cut, len(b))
	i := pick(cut, at)
	return b[:i] + string(r) + b[i:]
}

// lookalike replaces one Latin letter by a look-alike of another script.
func lookalike(b string, at int) string {
	swaps := map[rune]rune{'a': 'а', 'e': 'е', 'o': 'о', 'p': 'р', 'c': 'с', 'x': 'х', 'y': 'у', 'i': 'і', 'n': 'ո', 't': 'т'}
	var at0 []int
	for i, r := range b {
		if _, ok := swaps[r]; ok {
			at0 = append(at0, i)
		}
	}
	if len(at0) == 0 {
		return b
	}
	i := pick(at0, at)
	r, size := utf8.DecodeRuneInString(b[i:])
	return b[:i] + string(swaps[r]) + b[i+size:]
}

// FuzzReply: whatever the input, the reader returns a valid outcome with a
// reason and decides the same way twice; it approves only when the author's
// own folded words contain the vocabulary of an approval, readably; and no
// mutation of a reply that does not approve makes it approve.
func FuzzReply(f *testing.F) {
	for i, c := range replyTable {
		f.Add(c.body, uint8(i), uint16(i))
	}
	for i, c := range append(replyTable2, replyTable3...) {
		f.Add(c.body, uint8(i), uint16(i*7))
	}
	for i, s := range []string{"Security sign-off.", "Done.", "n\u200bot approved", "> approved\nok", "~~ok~~ lgtm",
		"Approved.\n\nThanks,\nDana", "Nit: R3. Approved", "Blocking:\n- rollback plan", "LGTM 👍 🙄"} {
		f.Add(s, uint8(i), uint16(i))
	}
	f.Fuzz(func(t *testing.T, body string, op uint8, at uint16) {
		v := Classify(body)
		if !v.Outcome.Valid() || v.Reason == "" {
			t.Fatalf("invalid verdict %+v", v)
		}
		if again := Classify(body); again != v {
			t.Fatalf("not deterministic: %+v then %+v", v, again)
		}
		folded, err := plaintext.Fold(plaintext.Marked(body))
		readable := err == nil && !strings.ContainsRune(folded, plaintext.Symbol) && !strings.ContainsRune(folded, plaintext.Hidden)
		if v.Outcome.Approves() {
			if !readable || !containsAny(folded, approvalWords) {
				t.Fatalf("%q approves (%s) without an approval word in %q", body, v.Reason, folded)
			}
			if ok, why := Permits(body); !ok {
				t.Fatalf("%q approves but Permits refuses it: %s", body, why)
			}
		} else {
			m := mutations[int(op)%len(mutations)](body, int(at))
			if w := Classify(m); w.Outcome.Approves() {
				t.Fatalf("%q does not approve (%s), but mutation %d makes %q approve (%s)", body, v.Reason, int(op)%len(mutations), m, w.Reason)
			}
		}
		if done, why := DeclaresDone(body); done && (!readable || !containsAny(folded, append(doneWords, approvalWords...))) {
			t.Fatalf("%q is done (%s) without a completion word in %q", body, why, folded)
		}
		if ok, why := SignsOff(body); ok && (!readable || !strings.Contains(folded, "sign") || !strings.Contains(folded, "security")) {
			t.Fatalf("%q signs off (%s) without the words in %q", body, why, folded)
		}
	})
}
