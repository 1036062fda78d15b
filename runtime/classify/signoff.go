package classify

import "sync"

// signOffCore are the statements that give a security sign-off.
var signOffCore = sync.OnceValue(func() []pattern {
	return compileAll(
		"[my|our|the] security (sign-off|signoff|sign_off) [(is|:)] [(granted|given|done|ok|okay|approved|complete)] [{TAIL}]",
		"{SUBJ} [{ADV}] (sign|signed) off [on] [the] security [review] [{TAIL}]",
		"[{SUBJ_BE}] [{ADV}] signing off [on] [the] security [review] [{TAIL}]",
		"[{SUBJ_HAVE}] [{ADV}] signed off [on] [the] security [review] [{TAIL}]",
		"{SUBJ} [{ADV}] (give|grant) [my|our|the] security (sign-off|signoff|sign_off) [{TAIL}]",
	)
})

// signOffLabels introduce a sign-off given in the clause after them
// ("Security sign-off: granted").
var signOffLabels = set("security sign-off", "security signoff", "security sign off")

// signOffGrants are what may follow such a label.
var signOffGrants = sync.OnceValue(func() []pattern {
	return compileAll(
		"(granted|given|done|ok|okay|approved|yes|signed_off|signed-off|lgtm|complete)",
	)
})

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
		return false, notRead(r.err).Reason
	}
	granted, noted := 0, false
	readings := make([]reading, len(r.clauses))
	for i, c := range r.clauses {
		s := c.sentence
		switch {
		case inCore(c.words, signOffCore()):
			granted++
		case signOffLabels[c.label] && inCore(c.words, signOffGrants()):
			granted++
		case signOffLabels[c.label] && len(c.words) >= 3:
			noted = true
			readings[i] = read(c, nil)
		default:
			readings[i] = read(c, nil)
			continue
		}
		if q, ok := questionOpener(c.words); s.question || ok {
			if q == "" {
				q = "?"
			}
			return false, "the sign-off is withheld: " + withhold(kindQuestion, q).reason()
		}
		if cond, _, ok := conditionOf(s); ok {
			return false, "the sign-off is withheld: " + withhold(kindCondition, cond).reason()
		}
	}
	if granted == 0 && !noted {
		return false, "the reply names no security sign-off the reader accepts"
	}
	for _, rd := range readings {
		switch rd.role {
		case roleWithhold, roleRefuse:
			return false, "the sign-off is withheld: " + rd.reason()
		case roleChange:
			return false, "the sign-off is withheld: " + rd.cue + " asks for a change"
		}
	}
	if w := withheldBeside(r, readings); w != nil {
		return false, "the sign-off is withheld: " + w.reason()
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
	var w []string
	for _, s := range r.sentences {
		w = append(w, splitLabel(s.label)...)
		for _, c := range s.clauses {
			w = append(w, splitLabel(c.label)...)
			w = append(w, c.words...)
		}
	}
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

func splitLabel(l string) []string {
	if l == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i <= len(l); i++ {
		if i == len(l) || l[i] == ' ' {
			if i > start {
				out = append(out, l[start:i])
			}
			start = i + 1
		}
	}
	return out
}
