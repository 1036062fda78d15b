package gates

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
)

const (
	HookPostGoalRequest = "post-goal-request"
	HookClassifyGoal    = "classify-goal"
)

// GoalRequestMarker identifies the loop's goal request on the thread.
const GoalRequestMarker = "<!-- the-loop:goal-request -->"

// outcomeDefined is the outcome of a gate that froze a statement.
const outcomeDefined = "defined"

// gateThread returns the authorized comments of the thread (read through
// the integration, never under check) followed by the event's, without
// repeats. listErr reports a thread that could not be read.
func gateThread(hc *runtime.HookContext) (comments []integrations.Comment, listErr error) {
	events := gateEventComments(hc)
	if hc.ReadOnly || hc.Tracker == nil || hc.TicketRef.System == "" {
		return authz.AuthorizedComments(hc.Config, events), nil
	}
	thread, err := hc.Tracker.ListComments(hc.Context, hc.TicketRef)
	if err != nil {
		return authz.AuthorizedComments(hc.Config, events), err
	}
	return authz.AuthorizedComments(hc.Config, gateMergeComments(thread, events)), nil
}

// gateNewestParsed returns the newest unedited comment parse accepts (an
// edited comment is never a decision).
func gateNewestParsed[T any](comments []integrations.Comment, parse func(string) (T, bool)) (integrations.Comment, T, bool) {
	for i := len(comments) - 1; i >= 0; i-- {
		if authz.Edited(comments[i]) {
			continue // an edited comment is never a decision
		}
		if v, ok := parse(comments[i].Body); ok {
			return comments[i], v, true
		}
	}
	var zero T
	return integrations.Comment{}, zero, false
}

// gateEcho neutralises HTML comments in human text the loop posts back, so
// an echoed statement can never carry one of the loop's markers.
func gateEcho(s string) string { return strings.ReplaceAll(s, "<!--", "&lt;!--") }

// PostGoalRequest asks, once, for the contribution's goal and success
// criteria — unless an authorized user already stated them (the arming
// comment may carry them) or the loop already asked.
func PostGoalRequest(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.ReadOnly {
		return runtime.Skipped(HookPostGoalRequest, gateReadOnly), nil
	}
	if _, ok := hc.Recorded(); ok {
		return runtime.OK(HookPostGoalRequest, gateData("posted", false, "reason", "goal already recorded")), nil
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(HookPostGoalRequest, why, "posted", false), nil
	}
	if thread, err := p.ListComments(hc.Context, hc.TicketRef); err == nil {
		if _, _, ok := gateNewestParsed(authz.AuthorizedComments(hc.Config, thread), ParseGoal); ok {
			return runtime.OK(HookPostGoalRequest, gateData("posted", false, "reason", "goal already stated")), nil
		}
		if _, ok := gateNewestOwn(hc.Config, thread, GoalRequestMarker); ok {
			return runtime.OK(HookPostGoalRequest, gateData("posted", false, "reason", "already asked")), nil
		}
	}
	body := "🤖 _the-loop_ — **what should this contribution achieve?**\n\n" +
		"Before any work starts, an authorized user states the goal and how we will know it is met, in one comment shaped like this:\n\n" +
		"```\nGoal: <one sentence: what changes for whom>\nSuccess criteria:\n- [ ] <an observable, checkable result>\n- [ ] <another>\n```\n\n" +
		"The criteria become the contribution's definition of done: verification does not pass until each is ticked and shown. The loop never writes, guesses or completes a goal for you.\n\n" +
		GoalRequestMarker + "\n"
	c, err := gatePost(hc, body)
	if err != nil {
		return gateDegrade(HookPostGoalRequest, err.Error(), "posted", false), nil
	}
	return runtime.OK(HookPostGoalRequest, gateData("posted", true, "commentUrl", c.URL, runtime.PostedKey, c)), nil
}

// ClassifyGoal answers goal-definition with the newest authorized goal
// statement on the thread (the arming comment included) or in the event,
// frozen with its provenance. Under check it reads no thread and posts
// nothing: only a recorded decision answers it there.
func ClassifyGoal(hc *runtime.HookContext) (runtime.Result, error) {
	if _, ok := hc.Recorded(); ok {
		return runtime.OK(HookClassifyGoal, gateData("outcome", outcomeDefined)), nil
	}
	comments, listErr := gateThread(hc)
	c, goal, ok := gateNewestParsed(comments, ParseGoal)
	if !ok {
		msg := "waiting for an authorized user to state the goal and success criteria (`Goal: …` plus a `Success criteria:` bullet list, in one comment)"
		if listErr != nil {
			msg += fmt.Sprintf("; the thread could not be read (%v)", listErr)
		}
		return runtime.Waiting(HookClassifyGoal, msg), nil
	}
	by := authz.At(c.Author)
	d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGoal, Outcome: outcomeDefined, Via: gateViaComment, By: by, CommentURL: c.URL,
		Data: gateData("goal", map[string]any{"goal": goal.Goal, "criteria": goal.Criteria})}
	data := gateData("outcome", outcomeDefined, "decision", d, "goal", map[string]any{"goal": goal.Goal, "criteria": goal.Criteria, "by": by})
	if !hc.ReadOnly {
		if _, why := gateTracker(hc); why != "" {
			data["error"] = why
		} else if _, err := gatePost(hc, goalConfirmation(goal, by, c.URL)); err != nil {
			data["error"] = fmt.Sprintf("the confirmation was not posted: %v", err)
		}
	}
	return runtime.OK(HookClassifyGoal, data), nil
}

func goalConfirmation(g Goal, by, url string) string {
	var b strings.Builder
	b.WriteString("🤖 _the-loop_ — **goal recorded**\n\n")
	fmt.Fprintf(&b, "> **Goal:** %s\n\nSuccess criteria — the definition of done, each a box in `contribution.md` that verification requires ticked:\n\n", gateEcho(g.Goal))
	for _, c := range g.Criteria {
		fmt.Fprintf(&b, "- [ ] %s\n", gateEcho(c))
	}
	fmt.Fprintf(&b, "\nFrozen from %s", by)
	if url != "" {
		fmt.Fprintf(&b, "'s [comment](%s)", url)
	}
	b.WriteString(". It does not change for the rest of this contribution.\n")
	return b.String()
}
