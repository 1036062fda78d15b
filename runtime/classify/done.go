package classify

import "fmt"

// doneWords declare that a requester needs nothing more.
var doneWords = phrases(
	"done", "all done", "we're done", "that's all", "thats all", "nothing else",
	"no more", "all set", "close it", "close this", "lgtm", "looks good",
	"ship it", "approved",
)

// moreWords ask for something beyond what was done.
var moreWords = phrases("also", "additionally", "one more", "another thing", "as well")

// DeclaresDone reports whether a reply to finished work declares the task
// complete, with the reason. It does when a completion phrase ("done", "all
// set", "that's all", "lgtm", "close it"…) appears that is not negated ("not
// done", "we're not done yet"), hedged or conditional ("once you're done"),
// or asked ("are we done?"), and the reply asks for nothing more: no change
// request, no request for an edit, no question, and no "also". Every other
// reply, "thanks" included, is a request for more work. The same word and
// negation rules as Classify apply (whole words, quoted text ignored).
func DeclaresDone(body string) (bool, string) {
	sentences, _ := prepare(body)
	var done, withheld, more []string
	questions := 0
	for _, s := range sentences {
		if s.question {
			questions++
		}
		for si, scope := range s.scopes {
			next := ""
			if si+1 < len(s.scopes) {
				next = s.scopes[si+1][0]
			}
			for _, m := range find(scope, doneWords) {
				if m.negated || m.hedged || conditions[next] || s.question {
					withheld = append(withheld, m.text)
				} else {
					done = append(done, m.text)
				}
			}
			for _, m := range find(scope, changeRequests) {
				if !m.negated {
					more = append(more, m.text)
				}
			}
			for _, m := range find(scope, moreWords) {
				more = append(more, m.text)
			}
			more = append(more, edits(scope)...)
		}
	}
	switch {
	case len(withheld) > 0:
		return false, fmt.Sprintf("%q is negated, hedged or asked, so the task is not declared done", withheld[0])
	case len(done) == 0:
		return false, "the reply declares no completion, so it is more work"
	case len(more) > 0:
		return false, fmt.Sprintf("%q asks for more", more[0])
	case questions > 0:
		return false, "the reply asks a question, so it is more work"
	}
	return true, fmt.Sprintf("%q declares the task done", done[0])
}
