package integrations

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// UpsertAction says what UpsertComment did.
type UpsertAction string

// The upsert actions.
const (
	UpsertCreated   UpsertAction = "created"
	UpsertEdited    UpsertAction = "edited"
	UpsertUnchanged UpsertAction = "unchanged"
)

// keyMarkerPattern is the shape of an upsert key: one HTML comment naming a
// the-loop marker, e.g. <!-- the-loop:pr-briefing -->.
var keyMarkerPattern = regexp.MustCompile(`^<!-- the-loop:[a-z0-9][a-z0-9:._-]* -->$`)

// UpsertCommentOps are the operations UpsertComment uses; a caller checks
// them with providers.CheckOperations.
var UpsertCommentOps = []Op{OpListComments, OpCreateComment, OpEditComment}

// IsOwnComment reports whether the loop itself posted c: the body carries
// SelfMarker and the author is one of selfLogins. Anyone can type the
// marker, so with no selfLogins nothing is the loop's own. Logins compare
// as GitHub does, case-insensitively, with a leading "@" ignored; the
// folding is ASCII-only, so a look-alike such as the Kelvin sign never
// matches "k".
func IsOwnComment(c Comment, selfLogins []string) bool {
	if !IsSelfAuthored(c.Body) {
		return false
	}
	author := normalLogin(c.Author)
	if author == "" {
		return false
	}
	for _, l := range selfLogins {
		if normalLogin(l) == author {
			return true
		}
	}
	return false
}

func normalLogin(login string) string {
	l := strings.TrimLeft(strings.TrimSpace(login), "@")
	b := []byte(l)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// UpsertComment keeps exactly one comment of the loop's on ref for key (a
// marker such as <!-- the-loop:pr-briefing -->): the newest comment the
// loop posted (IsOwnComment) that carries key is edited in place when its
// body differs, left alone when it is the same, and created only when there
// is none. A comment by anybody else that carries key is never edited. The
// thread is listed before any write, so a retry after a lost answer edits
// the comment the lost call created instead of posting a second one.
//
// With no selfLogins the loop cannot recognise its own comment; that is
// refused before any request (routing.selfLogins).
func UpsertComment(ctx context.Context, p Provider, ref Ref, key, body string, selfLogins []string) (Comment, UpsertAction, error) {
	if p == nil {
		return Comment{}, "", fmt.Errorf("upsert comment on %s: no ticket-system provider is configured", ref)
	}
	if !keyMarkerPattern.MatchString(key) {
		return Comment{}, "", Invalidf(p.Name(), OpEditComment, "upsert key %q is not one <!-- the-loop:NAME --> marker", key)
	}
	if len(selfLogins) == 0 {
		return Comment{}, "", Invalidf(p.Name(), OpEditComment, "the loop's own logins are unknown (routing.selfLogins), so its comment on %s cannot be found to edit; set routing.selfLogins", ref)
	}
	if strings.TrimSpace(body) == "" {
		return Comment{}, "", Invalidf(p.Name(), OpCreateComment, "the comment body is empty")
	}
	want := MarkSelfAuthored(withKey(body, key))
	thread, err := p.ListComments(ctx, ref)
	if err != nil {
		return Comment{}, "", fmt.Errorf("upsert comment on %s: %w", ref, err)
	}
	for i := len(thread) - 1; i >= 0; i-- {
		c := thread[i]
		if !strings.Contains(c.Body, key) || !IsOwnComment(c, selfLogins) {
			continue
		}
		if sameBody(c.Body, want) {
			return c, UpsertUnchanged, nil
		}
		out, err := p.EditComment(ctx, ref, c.ID, want)
		if err != nil {
			return Comment{}, "", fmt.Errorf("upsert comment on %s: %w", ref, err)
		}
		return out, UpsertEdited, nil
	}
	out, err := p.CreateComment(ctx, ref, want)
	if err != nil {
		return Comment{}, "", fmt.Errorf("upsert comment on %s: %w", ref, err)
	}
	return out, UpsertCreated, nil
}

// withKey places key on its own line before the self marker is added.
func withKey(body, key string) string {
	if strings.Contains(body, key) {
		return body
	}
	return strings.TrimRight(body, " \t\r\n") + "\n\n" + key + "\n"
}

// sameBody compares bodies as a system stores them (line endings and
// trailing space may be normalised).
func sameBody(stored, want string) bool {
	norm := func(s string) string {
		return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	}
	return norm(stored) == norm(want)
}
