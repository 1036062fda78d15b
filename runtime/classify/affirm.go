package classify

// Affirms returns the first of phrases (each a run of whole words) that body
// states plainly: not negated ("no security sign-off yet"), hedged or
// conditional ("will sign off once…"), or asked ("security sign-off?"),
// under the same word and quoting rules as Classify.
func Affirms(body string, list ...string) (string, bool) {
	ps := phrases(list...)
	sentences, _ := prepare(body)
	for _, s := range sentences {
		if s.question {
			continue
		}
		for si, scope := range s.scopes {
			next := ""
			if si+1 < len(s.scopes) {
				next = s.scopes[si+1][0]
			}
			for _, m := range find(scope, ps) {
				if !m.negated && !m.hedged && !conditions[next] {
					return m.text, true
				}
			}
		}
	}
	return "", false
}
