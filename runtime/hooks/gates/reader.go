package gates

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/markdown"
)

// NormalizeLogin returns a login as gates compare it: surrounding space and
// any leading "@" removed, lower-cased (GitHub logins are case-insensitive,
// so "@Alice" and "alice" are one user).
func NormalizeLogin(login string) string {
	// ASCII-only folding: logins are ASCII on GitHub, and Unicode case
	// folding would let the Kelvin sign (U+212A) stand in for a "k".
	return markdown.LowerASCII(strings.TrimLeft(strings.TrimSpace(login), "@"))
}

func gateLoginSet(list []string) map[string]bool {
	set := map[string]bool{}
	for _, l := range list {
		if n := NormalizeLogin(l); n != "" {
			set[n] = true
		}
	}
	return set
}

// IsAuthorized reports whether login is one of routing.authorizedUsers and
// not one of the loop's own logins. An empty list authorizes nobody.
func IsAuthorized(cfg *config.Config, login string) bool {
	l := NormalizeLogin(login)
	if cfg == nil || l == "" || gateLoginSet(cfg.Routing.SelfLogins)[l] {
		return false
	}
	return gateLoginSet(cfg.Routing.AuthorizedUsers)[l]
}

// AuthorizedComments is the one reader every human gate uses. It drops, in
// order, every comment carrying the loop's self-authored marker and every
// comment by one of the loop's own logins (routing.selfLogins), and then
// keeps only comments whose author — taken from the API's metadata, never
// from the body — is exactly one of routing.authorizedUsers (compared with
// NormalizeLogin). An empty authorized list reads nothing. Order is kept.
func AuthorizedComments(cfg *config.Config, comments []integrations.Comment) []integrations.Comment {
	if cfg == nil {
		return nil
	}
	allowed := gateLoginSet(cfg.Routing.AuthorizedUsers)
	if len(allowed) == 0 {
		return nil
	}
	self := gateLoginSet(cfg.Routing.SelfLogins)
	var out []integrations.Comment
	for _, c := range comments {
		login := NormalizeLogin(c.Author)
		if integrations.IsSelfAuthored(c.Body) || self[login] {
			continue
		}
		if login != "" && allowed[login] {
			out = append(out, c)
		}
	}
	return out
}

// gateOwnComment reports a comment the loop itself posted: it carries the
// self-authored marker and its author is one of routing.selfLogins. Anyone
// can type the marker, so without selfLogins nothing is the loop's own (fail
// closed): a posted checklist is then never read back, and a bare `execute`
// keeps every phase.
func gateOwnComment(cfg *config.Config, c integrations.Comment) bool {
	if !integrations.IsSelfAuthored(c.Body) || cfg == nil || len(cfg.Routing.SelfLogins) == 0 {
		return false
	}
	return gateLoginSet(cfg.Routing.SelfLogins)[NormalizeLogin(c.Author)]
}

// gateNewestOwn returns the newest comment the loop posted that carries
// marker.
func gateNewestOwn(cfg *config.Config, comments []integrations.Comment, marker string) (integrations.Comment, bool) {
	for i := len(comments) - 1; i >= 0; i-- {
		if c := comments[i]; strings.Contains(c.Body, marker) && gateOwnComment(cfg, c) {
			return c, true
		}
	}
	return integrations.Comment{}, false
}

// gateEventComments returns the event's comments (none under check).
func gateEventComments(hc *runtime.HookContext) []integrations.Comment {
	if hc.Event == nil {
		return nil
	}
	return hc.Event.Comments
}

// gateCurrentVisit drops the comments that precede this node's newest
// review request in the thread: a gate re-entered after changes were
// requested must not re-read the feedback of its previous visit. When the
// comments hold no request (an event carrying only new comments), all are
// kept.
func gateCurrentVisit(hc *runtime.HookContext, comments []integrations.Comment) []integrations.Comment {
	marker := ReviewMarker(hc.NodeID())
	for i := len(comments) - 1; i >= 0; i-- {
		if strings.Contains(comments[i].Body, marker) && gateOwnComment(hc.Config, comments[i]) {
			return comments[i+1:]
		}
	}
	return comments
}

// gateAt renders a login with exactly one leading "@".
func gateAt(login string) string {
	return "@" + strings.TrimLeft(strings.TrimSpace(login), "@")
}

// gateMergeComments joins two comment lists, dropping repeats (the same
// ID or the same URL) and keeping first-seen order.
func gateMergeComments(a, b []integrations.Comment) []integrations.Comment {
	seen := map[string]bool{}
	var out []integrations.Comment
	for _, list := range [][]integrations.Comment{a, b} {
		for _, c := range list {
			var keys []string
			if c.ID != 0 {
				keys = append(keys, fmt.Sprintf("id:%d", c.ID))
			}
			if c.URL != "" {
				keys = append(keys, "url:"+c.URL)
			}
			dup := false
			for _, k := range keys {
				dup = dup || seen[k]
				seen[k] = true
			}
			if !dup {
				out = append(out, c)
			}
		}
	}
	return out
}
