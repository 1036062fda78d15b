package gates

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/classify"
)

// gateHelpFor marks the help comment with the reply it speaks of.
func gateHelpFor(c integrations.Comment) string {
	key := fmt.Sprint(c.ID)
	if c.ID == 0 {
		key = BodyHash(c.URL + "\n" + c.Author)
	}
	return "<!-- the-loop:reply-help-for " + key + " -->"
}

// howToAnswer says, per kind of gate, which replies it reads.
var howToAnswer = map[string]string{
	HookClassifyFeedback: "To approve, reply `Approved.` (or `LGTM`, `I approve this.`); thanks, praise, an emoji of assent, " +
		"a nit for later or an @-mention may stand beside it, but not a condition, a question, a deferral, a negation or someone " +
		"else's words. To send the work back, reply `Changes requested:` and what to change. Quoted, struck-through, hidden or " +
		"coded text and edited comments are never read.",
	HookSecuritySignOff: "To sign off, an authorized reviewer comments `Security sign-off.` (or `I sign off on security.`) with " +
		"nothing that withholds it: no negation, condition, question, deferral or someone else's words. Edited comments are never read.",
	HookClassifyAdhocReply: "Reply `Done.` when nothing more is needed, or say what else to do. Emoji alone, thanks alone and " +
		"edited comments are never read.",
}

// gateHelp tells the author of reply c how the gate read it: what the reader
// took it to mean and, for text it could not read, where. There is one help
// comment per gate visit: posted for the first reply the gate cannot act
// on, edited in place for each later one, and left as it is for a reply it
// already speaks of — never one comment per cycle. Nothing is written under
// check. It returns what to report when the tracker refused.
func gateHelp(hc *runtime.HookContext, hook string, c integrations.Comment, meaning string) string {
	if hc.ReadOnly {
		return ""
	}
	p, why := gateTracker(hc)
	if p == nil {
		return why
	}
	marker, about := gateHelpMarker(hc.NodeID()), gateHelpFor(c)
	var b strings.Builder
	fmt.Fprintf(&b, "%s, I could not act on your [reply](%s) at **%s**, so it is still waiting.\n\n", authz.At(c.Author), c.URL, hc.NodeID())
	fmt.Fprintf(&b, "- How I read it: %s.\n", strings.TrimSuffix(meaning, "."))
	if where := classify.Unread(c.Body); where != "" {
		fmt.Fprintf(&b, "- What I could not read: %s. Post the reply again without it.\n", where)
	}
	fmt.Fprintf(&b, "\n%s\n\n%s\n%s", howToAnswer[hook], marker, about)
	body := b.String()
	for _, own := range gateOwnNotices(hc, marker) {
		if strings.Contains(own.Body, about) {
			return "" // this reply has had its help
		}
		if _, err := p.EditComment(hc.Context, hc.TicketRef, own.ID, integrations.MarkSelfAuthored(body)); err == nil {
			return ""
		}
	}
	if _, err := gatePost(hc, body); err != nil {
		return fmt.Sprintf("the help comment was not posted: %v", err)
	}
	return ""
}

// gateOwnNotices returns the comments of this visit the loop marked as its
// own that carry marker, newest first, the loop's own logins' first.
func gateOwnNotices(hc *runtime.HookContext, marker string) []integrations.Comment {
	var own, marked []integrations.Comment
	cs := gateEventComments(hc)
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		if !integrations.IsSelfAuthored(c.Body) || !strings.Contains(c.Body, marker) {
			continue
		}
		if authz.OwnComment(hc.Config, c) {
			own = append(own, c)
		} else {
			marked = append(marked, c)
		}
	}
	return append(own, marked...)
}
