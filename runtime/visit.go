package runtime

import (
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// Visit bounds the comments one visit of a node reads. It is set when the
// node is entered, from the comment ids the loop had seen by then, and
// raised to the id of the first comment the node's entry chain posts (a
// gate's review request opens its visit): a visit reads only comments above
// its floor. Ids, not clocks, bound it, so a comment that decided one visit
// can never decide another, whatever the ticket system's clock says.
type Visit struct {
	// Floor maps a comment stream (CommentStream) to the highest comment id
	// the visit does not read.
	Floor map[string]int64 `json:"floor,omitempty"`
}

// CommentStream names the sequence a comment's id belongs to: the host of
// its URL and its kind (a conversation comment, a review, a review
// comment). Ids are compared only within one stream.
func CommentStream(c integrations.Comment) string {
	host := ""
	if u, err := url.Parse(c.URL); err == nil {
		host = u.Host
	}
	return host + "#" + c.Kind
}

// reads reports whether the visit reads c: its id is above the floor of its
// stream. A comment without an id cannot be placed and is never read.
func (v *Visit) reads(c integrations.Comment) bool {
	return c.ID > 0 && c.ID > v.Floor[CommentStream(c)]
}

// raise lifts the floor of each comment's stream to its id.
func (v *Visit) raise(cs ...integrations.Comment) bool {
	moved := false
	for _, c := range cs {
		if c.ID <= 0 {
			continue
		}
		s := CommentStream(c)
		if c.ID > v.Floor[s] {
			if v.Floor == nil {
				v.Floor = map[string]int64{}
			}
			v.Floor[s], moved = c.ID, true
		}
	}
	return moved
}

// noteComments records in st the highest comment id of each stream the
// event carries: the next visit of any node begins above them.
func noteComments(st *State, e *Event) {
	if e == nil {
		return
	}
	for _, c := range e.Comments {
		if c.ID <= 0 {
			continue
		}
		s := CommentStream(c)
		if c.ID > st.CommentMarks[s] {
			if st.CommentMarks == nil {
				st.CommentMarks = map[string]int64{}
			}
			st.CommentMarks[s] = c.ID
		}
	}
}

// newVisit begins a visit above every comment id st has seen.
func newVisit(st *State) *Visit { return &Visit{Floor: maps.Clone(st.CommentMarks)} }

// visitOf keeps the comments the current visit of rec reads: those above
// its floor. A record an earlier release wrote has no floor; its visit
// keeps the comments written at or after it began, by time.
func (e *Event) visitOf(rec *NodeRecord) *Event {
	if e == nil {
		return nil
	}
	if rec.Visit == nil {
		return e.since(rec.LastEnteredAt)
	}
	out := &Event{}
	for _, c := range e.Comments {
		if rec.Visit.reads(c) {
			out.Comments = append(out.Comments, c)
		}
	}
	return out
}

// since keeps the comments written at or after the visit began: the rule
// of a visit an earlier release entered, which recorded no floor.
func (e *Event) since(visit string) *Event {
	if e == nil || visit == "" {
		return e
	}
	t, err := time.Parse(time.RFC3339, visit)
	if err != nil {
		return &Event{} // an unreadable visit start: read nothing (fail closed)
	}
	out := &Event{}
	for _, c := range e.Comments {
		// An undated comment cannot be placed in this visit: never read it.
		if !c.CreatedAt.IsZero() && !c.CreatedAt.Before(t.Add(-time.Second)) {
			out.Comments = append(out.Comments, c)
		}
	}
	return out
}

// PostedKey is the key of a hook result's data holding the comment the hook
// posted on the ticket (an integrations.Comment): posted by an entry chain,
// it opens the node's visit.
const PostedKey = "postedComment"

// postedBy returns the comments an entry chain's results say were posted.
func postedBy(results []Result) []integrations.Comment {
	var out []integrations.Comment
	for _, r := range results {
		if c, ok := r.Data[PostedKey].(integrations.Comment); ok {
			out = append(out, c)
		}
	}
	return out
}

// EvidenceKey is the key of a decision's data holding the comments it rests
// on: for each, its id, URL and kind (see the gates' evidence).
const EvidenceKey = "evidence"

// staleDecision finds a decision among results that rests on a comment the
// visit does not read (its id at or below the floor): such a comment
// decided, or was passed over by, an earlier visit. Gates read only the
// comments above the floor, so this holds against a hook that does not.
func staleDecision(rec *NodeRecord, results []Result) (string, bool) {
	if rec.Visit == nil {
		return "", false
	}
	for _, res := range results {
		d, ok := res.Data["decision"].(*Decision)
		if !ok || d == nil {
			continue
		}
		list, _ := d.Data[EvidenceKey].([]any)
		for _, raw := range list {
			e, _ := raw.(map[string]any)
			idText, _ := e["id"].(string)
			id, err := strconv.ParseInt(idText, 10, 64)
			if err != nil || id <= 0 {
				continue
			}
			u, _ := e["url"].(string)
			kind, _ := e["kind"].(string)
			c := integrations.Comment{ID: id, URL: u, Kind: kind}
			if !rec.Visit.reads(c) {
				return fmt.Sprintf("the comment this decision rests on (%s) belongs to an earlier visit of %s; a comment decides once, so the gate waits for a new reply", u, d.Node), true
			}
		}
	}
	return "", false
}
