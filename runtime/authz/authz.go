// Package authz is the rule for whose ticket comments the loop reads as
// decisions. The human gates and the poller both read comments through it:
// a comment decides only when its author, taken from the API's metadata and
// never from the body, is one of routing.authorizedUsers and not one of the
// loop's own logins; an empty authorized list authorizes nobody; the
// loop's own comments and edited comments are never decisions.
package authz

import (
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/markdown"
)

// NormalizeLogin returns a login as the rule compares it: surrounding space
// and any leading "@" removed, lower-cased (GitHub logins are
// case-insensitive, so "@Alice" and "alice" are one user).
func NormalizeLogin(login string) string {
	// ASCII-only folding: logins are ASCII on GitHub, and Unicode case
	// folding would let the Kelvin sign (U+212A) stand in for a "k".
	return markdown.LowerASCII(strings.TrimLeft(strings.TrimSpace(login), "@"))
}

// At renders a login with exactly one leading "@".
func At(login string) string {
	return "@" + strings.TrimLeft(strings.TrimSpace(login), "@")
}

// loginSet normalizes a list of logins, dropping empty ones.
func loginSet(list []string) map[string]bool {
	set := map[string]bool{}
	for _, l := range list {
		if n := NormalizeLogin(l); n != "" {
			set[n] = true
		}
	}
	return set
}

// IsSelfLogin reports whether login is one of the loop's own accounts
// (routing.selfLogins).
func IsSelfLogin(cfg *config.Config, login string) bool {
	l := NormalizeLogin(login)
	return cfg != nil && l != "" && loginSet(cfg.Routing.SelfLogins)[l]
}

// IsAuthorized reports whether login is one of routing.authorizedUsers and
// not one of the loop's own logins. An empty list authorizes nobody.
func IsAuthorized(cfg *config.Config, login string) bool {
	l := NormalizeLogin(login)
	if cfg == nil || l == "" || loginSet(cfg.Routing.SelfLogins)[l] {
		return false
	}
	return loginSet(cfg.Routing.AuthorizedUsers)[l]
}

// AuthorizedComments is the one reader every human gate and the poller use.
// It drops, in order, every comment carrying the loop's self-authored marker
// and every comment by one of the loop's own logins (routing.selfLogins),
// and then keeps only comments whose author is exactly one of
// routing.authorizedUsers (compared with NormalizeLogin). An empty
// authorized list reads nothing. Order is kept.
func AuthorizedComments(cfg *config.Config, comments []integrations.Comment) []integrations.Comment {
	if cfg == nil || len(comments) == 0 {
		return nil
	}
	allowed := loginSet(cfg.Routing.AuthorizedUsers)
	if len(allowed) == 0 {
		return nil
	}
	self := loginSet(cfg.Routing.SelfLogins)
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

// OwnComment reports a comment the loop itself posted: it carries the
// self-authored marker and its author is one of routing.selfLogins. Anyone
// can type the marker, so without selfLogins nothing is the loop's own
// (fail closed).
func OwnComment(cfg *config.Config, c integrations.Comment) bool {
	if !integrations.IsSelfAuthored(c.Body) || cfg == nil || len(cfg.Routing.SelfLogins) == 0 {
		return false
	}
	return loginSet(cfg.Routing.SelfLogins)[NormalizeLogin(c.Author)]
}

// Edited reports a comment edited after it was created (the provider's
// updated time is later than its created time). An edited comment is never
// read as a decision: what would be read is not what was first posted, and
// nothing records what it said before.
func Edited(c integrations.Comment) bool {
	return !c.CreatedAt.IsZero() && c.UpdatedAt.After(c.CreatedAt)
}
