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
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

const HookRecordFeedback = "record-feedback"

// reviewCommentsHeading is the section feedback is recorded under.
const reviewCommentsHeading = "## Review comments"

// clock dates the recorded feedback (tests pin it).
var clock = time.Now

// gateFeedbackMarker tags a recorded reply so it is never recorded twice.
func gateFeedbackMarker(key string) string { return "<!-- the-loop:feedback " + key + " -->" }

// RecordFeedback appends the replies the chain's classify-feedback read to
// the artifact named by param into (with "|" alternatives, the first that
// exists), under its "## Review comments" section: a dated heading with the
// outcome, then each reply attributed to its author, quoted so that its
// text can never become a heading of the artifact. Earlier entries are never
// rewritten; a reply already recorded (by URL, else by ID, else by content)
// is not recorded again. Nothing is written under check.
func RecordFeedback(hc *runtime.HookContext) (runtime.Result, error) {
	into := hc.Param("into")
	if len(runtime.Alternatives(into)) == 0 {
		return runtime.Skipped(HookRecordFeedback, "no target artifact declared"), nil
	}
	if hc.ReadOnly {
		return runtime.Skipped(HookRecordFeedback, gateReadOnly), nil
	}
	comments, outcome := gateFeedbackOf(hc.Results)
	if len(comments) == 0 {
		return runtime.Skipped(HookRecordFeedback, "no feedback to record"), nil
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	if bad := d.RefuseUnsafeNames(specdir.ParseSlots([]string{into})); len(bad) > 0 {
		return runtime.Final(HookRecordFeedback, bad...), nil
	}
	name, text, err := gateReadFirst(hc, into)
	switch {
	case err != nil:
		return runtime.Blocked(HookRecordFeedback, runtime.Errorf(d.Rel(name), "the feedback could not be recorded: %v", err)), nil
	case name == "":
		return runtime.Skipped(HookRecordFeedback, fmt.Sprintf("%s does not exist", gateNames(into))), nil
	}
	entry, n := gateFeedbackEntry(text, comments, outcome)
	if n == 0 {
		return runtime.OK(HookRecordFeedback, gateData("recorded", 0, "artifact", name)), nil
	}
	if err := d.WriteAtomic(name, []byte(gateInsertFeedback(text, entry))); err != nil {
		return runtime.Blocked(HookRecordFeedback, runtime.Errorf(d.Rel(name), "the feedback could not be recorded: %v", err)), nil
	}
	return runtime.OK(HookRecordFeedback, gateData("recorded", n, "artifact", name)), nil
}

// gateFeedbackOf returns the replies and outcome of the chain's last
// classify-feedback result that read replies.
func gateFeedbackOf(results []runtime.Result) ([]integrations.Comment, string) {
	for i := len(results) - 1; i >= 0; i-- {
		r := results[i]
		if r.Hook != HookClassifyFeedback {
			continue
		}
		cs, _ := r.Data["feedback"].([]integrations.Comment)
		o, _ := r.Data["outcome"].(string)
		return cs, o
	}
	return nil, ""
}

// gateFeedbackKey identifies a reply: its URL, else its ID, else a hash of
// its author and text.
func gateFeedbackKey(c integrations.Comment) string {
	switch {
	case c.URL != "":
		return c.URL
	case c.ID != 0:
		return fmt.Sprintf("id:%d", c.ID)
	}
	sum := sha256.Sum256([]byte(authz.NormalizeLogin(c.Author) + "\n" + c.Body))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// gateFeedbackEntry renders the entry for the replies not yet recorded in
// text, and how many it holds.
func gateFeedbackEntry(text string, comments []integrations.Comment, outcome string) (string, int) {
	if outcome == "" {
		outcome = "reviewed"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### %s — %s\n", clock().Local().Format("2006-01-02"), outcome)
	n := 0
	for _, c := range comments {
		marker := gateFeedbackMarker(gateFeedbackKey(c))
		if strings.Contains(text, marker) {
			continue
		}
		n++
		who := authz.At(c.Author)
		body := strings.TrimSpace(strings.ReplaceAll(c.Body, "\r\n", "\n"))
		b.WriteString("\n")
		switch {
		case body == "" && c.URL != "":
			fmt.Fprintf(&b, "**%s** left no comment text ([comment](%s)).\n", who, c.URL)
		case body == "":
			fmt.Fprintf(&b, "**%s** left no comment text.\n", who)
		case c.URL != "":
			fmt.Fprintf(&b, "**%s** wrote ([comment](%s)):\n\n", who, c.URL)
		default:
			fmt.Fprintf(&b, "**%s** wrote:\n\n", who)
		}
		if body != "" {
			for _, line := range strings.Split(body, "\n") {
				b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
			}
		}
		b.WriteString(marker + "\n")
	}
	return b.String(), n
}

// gateInsertFeedback places entry at the end of the Review comments section
// (before the next heading of level 1 or 2), adding the section at the end
// of the text when there is none. Everything else is kept byte for byte.
func gateInsertFeedback(text, entry string) string {
	lines := strings.SplitAfter(text, "\n")
	inFence, start, end := false, -1, len(lines)
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r\n")
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		switch {
		case start < 0 && level == 2 && strings.TrimSpace(line[level:]) == "Review comments":
			start = i
		case start >= 0 && level <= 2:
			end = i
		}
		if start >= 0 && end < len(lines) {
			break
		}
	}
	if start < 0 {
		return strings.TrimRight(text, "\n") + "\n\n" + reviewCommentsHeading + "\n\n" + entry
	}
	head := strings.Join(lines[:end], "")
	tail := strings.Join(lines[end:], "")
	head = strings.TrimRight(head, "\n") + "\n\n" + entry
	if tail != "" {
		head += "\n"
	}
	return head + tail
}
