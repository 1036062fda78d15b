package handoff

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// Found is the record FindRecord honours, with the comment metadata that
// establishes who wrote it.
type Found struct {
	Record Record
	// Comment is the record comment; its Author is the record's author.
	Comment integrations.Comment
	// Parts are the continuation comments, in index order.
	Parts []integrations.Comment
	// Author is the person the record is attributed to: its comment's author
	// from the API, or, for a record the loop posted, the authorized person
	// its posted-by line names.
	Author string
	// CommentURL is the record comment's address.
	CommentURL string
	// ID is the record id its parts name.
	ID string
}

// Rejection says why one record (or part) comment was not honoured.
type Rejection struct {
	CommentURL string
	Author     string
	Code       Code
	Reason     string
}

// FindRecord returns the newest well-formed record whose author is
// authorized (isAuthorized(login)), or that the loop posted itself
// (isSelf(comment)) for a person it names on its posted-by line who is
// authorized — never the loop as the author; and a rejection for every other
// record comment examined, naming why. Parts count only when written by the
// record comment's author. A nil Found means no handoff: the item starts as
// it would without one.
func FindRecord(comments []integrations.Comment, isAuthorized func(login string) bool, isSelf func(c integrations.Comment) bool) (*Found, []Rejection) {
	type indexed struct {
		c   integrations.Comment
		pos int
	}
	var records []indexed
	partsByID := map[string][]integrations.Comment{}
	for i, c := range comments {
		if id, _, ok := partHeader(c.Body); ok {
			partsByID[id] = append(partsByID[id], c)
			continue
		}
		if hasMarkerLine(c.Body) {
			records = append(records, indexed{c, i})
		}
	}
	// Newest first: creation time, then comment id, then position.
	slices.SortStableFunc(records, func(a, b indexed) int {
		if c := b.c.CreatedAt.Compare(a.c.CreatedAt); c != 0 {
			return c
		}
		if c := cmp.Compare(b.c.ID, a.c.ID); c != 0 {
			return c
		}
		return cmp.Compare(b.pos, a.pos)
	})
	var found *Found
	var rejected []Rejection
	reject := func(c integrations.Comment, code Code, reason string) {
		rejected = append(rejected, Rejection{CommentURL: c.URL, Author: c.Author, Code: code, Reason: reason})
	}
	for _, rc := range records {
		c := rc.c
		if found != nil {
			reject(c, CodeSuperseded, "superseded by the newer record "+found.CommentURL)
			continue
		}
		self := isSelf != nil && isSelf(c)
		author := c.Author
		if self {
			by, ok := PostedBy(c.Body)
			switch {
			case !ok:
				reject(c, CodeUnauthorized, "the loop posted this record without naming the person it was posted for, so nobody is its author; post it again with `the-loop handoff post` (which names the operator)")
				continue
			case isAuthorized == nil || !isAuthorized(by):
				reject(c, CodeUnauthorized, "the loop posted this record for @"+by+", who is not an authorized user; only routing.authorizedUsers may hand off")
				continue
			}
			author = by
		} else if !authorized(c, isAuthorized) {
			reject(c, CodeUnauthorized, "author @"+c.Author+" is not an authorized user and the comment is not the loop's own; only routing.authorizedUsers or the loop may hand off")
			continue
		}
		h, err := readHeader(splitLines(c.Body))
		if err != nil {
			reject(c, CodeOf(err), err.Error())
			continue
		}
		parts, perr := pickParts(c, h, partsByID[h.id], func(p integrations.Comment, why string) {
			reject(p, CodeUnauthorized, why)
		})
		if perr != nil {
			reject(c, CodeOf(perr), perr.Error())
			continue
		}
		bodies := make([]string, len(parts))
		for i, p := range parts {
			bodies[i] = p.Body
		}
		rec, err := ParseComments(c.Body, bodies)
		if err != nil {
			reject(c, CodeOf(err), err.Error())
			continue
		}
		found = &Found{Record: rec, Comment: c, Parts: parts, Author: author, CommentURL: c.URL, ID: h.id}
	}
	return found, rejected
}

// authorized applies the login allowlist, refusing deleted accounts and
// authors GitHub says have no association with the repository.
func authorized(c integrations.Comment, isAuthorized func(string) bool) bool {
	login := strings.TrimSpace(c.Author)
	if login == "" || strings.EqualFold(login, "ghost") || c.AuthorAssociation == "NONE" || isAuthorized == nil {
		return false
	}
	return isAuthorized(login)
}

// pickParts selects the record's continuation parts: by the record's
// author, one per index, oldest first. Parts by anyone else are reported
// through ignored and never count.
func pickParts(rec integrations.Comment, h header, candidates []integrations.Comment, ignored func(integrations.Comment, string)) ([]integrations.Comment, error) {
	if h.parts == 0 {
		return nil, nil
	}
	byIndex := map[int][]integrations.Comment{}
	for _, p := range candidates {
		if !strings.EqualFold(p.Author, rec.Author) {
			ignored(p, "continuation part by @"+p.Author+" ignored: parts count only when the record's author (@"+rec.Author+") wrote them")
			continue
		}
		_, idx, _ := partHeader(p.Body)
		byIndex[idx] = append(byIndex[idx], p)
	}
	out := make([]integrations.Comment, 0, h.parts)
	for i := 1; i <= h.parts; i++ {
		got := byIndex[i]
		if len(got) == 0 {
			return nil, rejectf(CodeMissingParts, 0, "the record declares %d continuation parts but part %d by @%s is missing; post every part", h.parts, i, rec.Author)
		}
		slices.SortStableFunc(got, func(a, b integrations.Comment) int { return a.CreatedAt.Compare(b.CreatedAt) })
		for _, g := range got[1:] {
			if g.Body != got[0].Body {
				return nil, rejectf(CodeConflictingPart, 0, "two different continuation parts %d by @%s; delete one", i, rec.Author)
			}
		}
		out = append(out, got[0])
	}
	return out, nil
}

// partHeader reads a part comment's marker line.
func partHeader(body string) (id string, index int, ok bool) {
	for _, l := range splitLines(body) {
		l = trimRight(l)
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := partMarkerRE().FindStringSubmatch(l)
		if m == nil {
			return "", 0, false
		}
		n, _ := strconv.Atoi(m[2])
		return m[1], n, true
	}
	return "", 0, false
}

// hasMarkerLine reports whether any line of body is the record marker.
func hasMarkerLine(body string) bool {
	for _, l := range splitLines(body) {
		if strings.TrimSpace(l) == RecordMarker {
			return true
		}
	}
	return false
}

func splitLines(body string) []string {
	return strings.Split(string(NormalizeLF([]byte(body))), "\n")
}
