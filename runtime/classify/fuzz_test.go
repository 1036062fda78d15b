package classify

import (
	"strings"
	"testing"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// approvalWords are the words every accepted approval contains; a reply
// holding none of them (once reduced to its author's own folded words) must
// never approve.
var approvalWords = []string{"approv", "lgtm", "sgtm", "+1", "ship", "good", "great", "fine", "solid", "excellent",
	"perfect", "correct", "right", "sound", "ok", "ready", "clear", "proceed", "ahead", "merge", "happy"}

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

// FuzzReply: whatever the input, the reader returns a valid outcome with a
// reason, decides the same way twice, and approves, declares done or signs
// off only when the author's own folded words contain the vocabulary for
// it, with no symbol and no bidirectional control anywhere.
func FuzzReply(f *testing.F) {
	for _, c := range replyTable {
		f.Add(c.body)
	}
	for _, s := range []string{"Security sign-off.", "Done.", "n\u200bot approved", "> approved\nok", "~~ok~~ lgtm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		v := Classify(body)
		if !v.Outcome.Valid() || v.Reason == "" {
			t.Fatalf("invalid verdict %+v", v)
		}
		if again := Classify(body); again != v {
			t.Fatalf("not deterministic: %+v then %+v", v, again)
		}
		folded, err := plaintext.Fold(plaintext.Own(body))
		readable := err == nil && !strings.ContainsRune(folded, plaintext.Symbol)
		if v.Outcome.Approves() {
			if !readable || !containsAny(folded, approvalWords) {
				t.Fatalf("%q approves (%s) without an approval word in %q", body, v.Reason, folded)
			}
			if ok, why := Permits(body); !ok {
				t.Fatalf("%q approves but Permits refuses it: %s", body, why)
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
