package classify

import "fmt"

// signOffCore are the statements that give a security sign-off.
var signOffCore = compileAll(
	"[my|our|the] security (sign-off|signoff|sign_off) [(is|:)] [(granted|given|done|ok|okay|approved|complete)] [{TAIL}]",
	"{SUBJ} [{ADV}] (sign|signed) off [on] [the] security [review] [{TAIL}]",
	"[{SUBJ_BE}] [{ADV}] signing off [on] [the] security [review] [{TAIL}]",
	"[{SUBJ_HAVE}] [{ADV}] signed off [on] [the] security [review] [{TAIL}]",
	"{SUBJ} [{ADV}] (give|grant) [my|our|the] security (sign-off|signoff|sign_off) [{TAIL}]",
)

// signOffLabels introduce a sign-off given in the clause after them
// ("Security sign-off: granted").
var signOffLabels = set("security sign-off", "security signoff", "security")

// signOffGrants are what may follow such a label.
var signOffGrants = compileAll(
	"(granted|given|done|ok|okay|approved|yes|signed_off|signed-off|lgtm|complete)",
)

// SignsOff reports whether a reply gives a named security sign-off, with
// the reason. It does when a clause is, in full, a sign-off statement ("Security
// sign-off.", "I sign off on security.", "Security sign-off: granted", or
// a "Security sign-off:" label followed by the reviewer's own notes), and
// nothing in the reply withholds it — under the same rules as an approval:
// "Waiting for security sign-off.", "No security sign-off yet.", "Security
// sign-off once the token handling is fixed" and "Did security sign off?"
// never sign off.
func SignsOff(body string) (bool, string) {
	r := parse(body)
	if r.err != nil {
		return false, fmt.Sprintf("the reply is not read: %v", r.err)
	}
	var core []clause
	noted := false // a "Security sign-off:" label over the reviewer's own notes
	for _, s := range r.sentences {
		for _, c := range s.clauses {
			switch {
			case matchesAny(c.words, signOffCore):
				core = append(core, c)
			case signOffLabels[c.label] && matchesAny(c.words, signOffGrants):
				core = append(core, c)
			case signOffLabels[c.label] && c.label != "security" && len(c.words) >= 3:
				noted = true // its words stay subject to every check below
			}
		}
	}
	if len(core) == 0 && !noted {
		return false, "the reply names no security sign-off the reader accepts"
	}
	if why := withheld(r, core); why != "" {
		return false, "the sign-off is withheld: " + why
	}
	return true, "the reply gives a security sign-off and nothing withholds it"
}

// MentionsSignOff reports a comment that speaks of a sign-off at all
// ("sign-off", "signed off", "signing off"): the newest such comment
// decides the sign-off, so "Waiting for security sign-off" or "my sign-off
// is withdrawn" supersedes an earlier sign-off. A comment that cannot be
// read counts as one (it may be a withdrawal).
func MentionsSignOff(body string) bool {
	r := parse(body)
	if r.err != nil {
		return true
	}
	w := r.words()
	for i, x := range w {
		switch x {
		case "sign-off", "signoff", "sign-offs", "signoffs", "signed-off":
			return true
		case "sign", "signed", "signing", "signs":
			if i+1 < len(w) && w[i+1] == "off" {
				return true
			}
		}
	}
	return false
}
