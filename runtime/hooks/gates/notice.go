package gates

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
)

// BodyHash is the hash a decision records of a comment's body.
func BodyHash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// EvidenceKey is the key of a decision's data holding what it rests on.
const EvidenceKey = runtime.EvidenceKey

// gateEvidence records, for each comment a decision rests on, its id, URL,
// author, body hash and timestamps: signed with the decision, it says
// exactly which text decided, and a later edit of that comment shows.
func gateEvidence(cs ...integrations.Comment) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		e := map[string]any{"url": c.URL, "author": authz.NormalizeLogin(c.Author), "sha256": BodyHash(c.Body)}
		if c.ID != 0 {
			e["id"] = fmt.Sprint(c.ID)
		}
		if c.Kind != "" {
			e["kind"] = c.Kind
		}
		if !c.CreatedAt.IsZero() {
			e["createdAt"] = c.CreatedAt.UTC().Format(time.RFC3339Nano)
		}
		if !c.UpdatedAt.IsZero() {
			e["updatedAt"] = c.UpdatedAt.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, e)
	}
	return out
}

// Notice markers: one comment of each kind per gate visit (help, edited in
// place for each reply it speaks of) or per edited comment (edited).
func gateHelpMarker(node string) string { return "<!-- the-loop:reply-help " + node + " -->" }

func gateEditedMarker(node string, c integrations.Comment) string {
	key := fmt.Sprint(c.ID)
	if c.ID == 0 {
		sum := sha256.Sum256([]byte(c.URL + "\n" + c.Author))
		key = hex.EncodeToString(sum[:8])
	}
	return "<!-- the-loop:edited " + node + " " + key + " -->"
}

// gateNotice posts body with marker on the thread unless a comment the loop
// marked as its own already carries marker among the event's comments (this
// visit's): it is said once, never each cycle. Nothing is posted under check
// or without a tracker. It returns what to report when the post failed.
func gateNotice(hc *runtime.HookContext, marker, body string) string {
	if hc.ReadOnly {
		return ""
	}
	for _, c := range gateEventComments(hc) {
		if integrations.IsSelfAuthored(c.Body) && strings.Contains(c.Body, marker) {
			return ""
		}
	}
	if p, why := gateTracker(hc); p == nil {
		return why
	}
	if _, err := gatePost(hc, body+"\n\n"+marker); err != nil {
		return fmt.Sprintf("the notice was not posted: %v", err)
	}
	return ""
}

// gateEditedNotice says, once per edited comment, that it is not read.
func gateEditedNotice(hc *runtime.HookContext, c integrations.Comment) string {
	body := fmt.Sprintf("%s, your [comment](%s) was edited after it was posted, so this gate does not read it: an edited comment is never a decision. "+
		"Post a new comment instead.", authz.At(c.Author), c.URL)
	return gateNotice(hc, gateEditedMarker(hc.NodeID(), c), body)
}

// gateWaitEdited is the wait of a gate whose deciding comment was edited.
func gateWaitEdited(hc *runtime.HookContext, hook string, c integrations.Comment) runtime.Result {
	r := runtime.Waiting(hook, fmt.Sprintf("the newest authorized comment (by %s) was edited after it was posted; an edited comment is never a decision, so the gate waits for a new one", authz.At(c.Author)))
	if why := gateEditedNotice(hc, c); why != "" {
		r.Data = gateData("error", why)
	}
	return r
}

// EventDecisionCommentChanged is recorded when a comment a decision rests on
// was edited or deleted after the decision.
const EventDecisionCommentChanged = "gate.decision_comment_changed"

// ChangedEvidence compares the comments each recorded decision of st rests
// on (its evidence) with the thread as it stands, and returns one event per
// comment edited (body hash or updated time changed) or deleted since.
func ChangedEvidence(st *runtime.State, thread []integrations.Comment) []runtime.EventRecord {
	byID, byURL := map[string]integrations.Comment{}, map[string]integrations.Comment{}
	for _, c := range thread {
		if c.ID != 0 {
			byID[fmt.Sprint(c.ID)] = c
		}
		if c.URL != "" {
			byURL[c.URL] = c
		}
	}
	var out []runtime.EventRecord
	for _, d := range st.AllDecisions() {
		list, _ := d.Data[EvidenceKey].([]any)
		for _, raw := range list {
			e, _ := raw.(map[string]any)
			id, _ := e["id"].(string)
			url, _ := e["url"].(string)
			want, _ := e["sha256"].(string)
			c, ok := byID[id]
			if !ok || id == "" {
				c, ok = byURL[url]
			}
			data := map[string]any{"commentUrl": url, "recordedSha256": want, "decision": d.Kind, "outcome": d.Outcome, "by": d.By}
			switch {
			case !ok:
				data["change"] = "deleted"
			case BodyHash(c.Body) != want || changedAfter(c, e):
				data["change"], data["currentSha256"] = "edited", BodyHash(c.Body)
				data["updatedAt"] = c.UpdatedAt.UTC().Format(time.RFC3339Nano)
			default:
				continue
			}
			out = append(out, runtime.EventRecord{Name: EventDecisionCommentChanged, Node: d.Node, Data: data})
		}
	}
	return out
}

// changedAfter reports a comment updated after the time its evidence records.
func changedAfter(c integrations.Comment, e map[string]any) bool {
	at, _ := e["updatedAt"].(string)
	t, err := time.Parse(time.RFC3339Nano, at)
	return err == nil && c.UpdatedAt.After(t)
}
