package gates

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
)

const (
	HookPostReviewBrief     = "post-review-brief"
	HookClassifyReviewBrief = "classify-review-brief"
)

// briefRequestMarker identifies the loop's brief request on the thread.
const briefRequestMarker = "<!-- the-loop:review-brief-request -->"

func parseBriefFor(hc *runtime.HookContext) func(string) (Brief, bool) {
	return func(body string) (Brief, bool) { return ParseBrief(body, hc.TicketRef) }
}

// PostReviewBrief posts, once, the template a reviewer fills in — unless
// an authorized user already stated a brief (the arming comment may carry
// it) or the loop already asked. The pull-request list is pre-filled with
// the inner loops found under the work item's pr-loops/ folder.
func PostReviewBrief(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.ReadOnly {
		return runtime.Skipped(HookPostReviewBrief, gateReadOnly), nil
	}
	if _, ok := hc.Recorded(); ok {
		return runtime.OK(HookPostReviewBrief, gateData("posted", false, "reason", "brief already recorded")), nil
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(HookPostReviewBrief, why, "posted", false), nil
	}
	if thread, err := p.ListComments(hc.Context, hc.TicketRef); err == nil {
		if _, _, ok := gateNewestParsed(authz.AuthorizedComments(hc.Config, thread), parseBriefFor(hc)); ok {
			return runtime.OK(HookPostReviewBrief, gateData("posted", false, "reason", "brief already stated")), nil
		}
		if _, ok := gateNewestOwn(hc.Config, thread, briefRequestMarker); ok {
			return runtime.OK(HookPostReviewBrief, gateData("posted", false, "reason", "already asked")), nil
		}
	}
	var b strings.Builder
	b.WriteString("🤖 _the-loop_ — **what should this review cover?**\n\n")
	b.WriteString("The loop reviews and changes nothing. Tell it what to look at, in one comment, with at least one of the first three lists:\n\n```\nQuestions:\n- <something you want answered>\nAngles:\n- <a concern to examine, e.g. error handling>\nValidations:\n- <a check to run, e.g. the test suite>\nPull requests:\n")
	prs := gateInnerLoopPRs(hc)
	for _, pr := range prs {
		b.WriteString("- " + pr + "\n")
	}
	if len(prs) == 0 {
		b.WriteString("- <#number, owner/repo#number or a URL; leave empty to review this thread itself>\n")
	}
	b.WriteString("```\n\nThe newest brief from an authorized user is frozen; each later round answers it plus your follow-up reply.\n\n" + briefRequestMarker + "\n")
	c, err := gatePost(hc, b.String())
	if err != nil {
		return gateDegrade(HookPostReviewBrief, err.Error(), "posted", false), nil
	}
	return runtime.OK(HookPostReviewBrief, gateData("posted", true, "commentUrl", c.URL, runtime.PostedKey, c)), nil
}

// gateInnerLoopPRs lists the pull requests with an inner loop under the
// spec folder: pr-loops/pr-<n> (the origin repository, "#n") and
// pr-loops/<owner>__<repo>/pr-<n> ("owner/repo#n").
func gateInnerLoopPRs(hc *runtime.HookContext) []string {
	base := filepath.Join(hc.WorkItem.SpecDir, "pr-loops")
	var out []string
	prNum := func(name string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "pr-"))
		return n, strings.HasPrefix(name, "pr-") && err == nil && n > 0
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if n, ok := prNum(e.Name()); ok {
			out = append(out, fmt.Sprintf("#%d", n))
			continue
		}
		owner, repo, ok := strings.Cut(e.Name(), "__")
		if !ok {
			continue
		}
		inner, _ := os.ReadDir(filepath.Join(base, e.Name()))
		for _, ie := range inner {
			if n, ok := prNum(ie.Name()); ok && ie.IsDir() {
				if ref, ok := gatePRRef(owner, repo, strconv.Itoa(n)); ok {
					out = append(out, ref)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// ClassifyReviewBrief answers review-brief with the newest authorized,
// non-self-authored brief on the thread or in the event, frozen with its
// provenance. Under check it reads no thread and posts nothing.
func ClassifyReviewBrief(hc *runtime.HookContext) (runtime.Result, error) {
	if _, ok := hc.Recorded(); ok {
		return runtime.OK(HookClassifyReviewBrief, gateData("outcome", outcomeDefined)), nil
	}
	comments, listErr := gateThread(hc)
	c, brief, ok := gateNewestParsed(comments, parseBriefFor(hc))
	if !ok {
		msg := "waiting for an authorized user to state the review brief (`Questions:`, `Angles:` or `Validations:` with bullets, in one comment)"
		if listErr != nil {
			msg += fmt.Sprintf("; the thread could not be read (%v)", listErr)
		}
		return runtime.Waiting(HookClassifyReviewBrief, msg), nil
	}
	by := authz.At(c.Author)
	frozen := map[string]any{"questions": gateList(brief.Questions), "angles": gateList(brief.Angles),
		"validations": gateList(brief.Validations), "pullRequests": gateList(brief.PullRequests)}
	d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindBrief, Outcome: outcomeDefined, Via: gateViaComment, By: by, CommentURL: c.URL,
		Data: gateData("brief", frozen)}
	data := gateData("outcome", outcomeDefined, "decision", d, "brief", frozen)
	if !hc.ReadOnly {
		if _, why := gateTracker(hc); why != "" {
			data["error"] = why
		} else if _, err := gatePost(hc, briefConfirmation(brief, by)); err != nil {
			data["error"] = fmt.Sprintf("the confirmation was not posted: %v", err)
		}
	}
	return runtime.OK(HookClassifyReviewBrief, data), nil
}

func briefConfirmation(b Brief, by string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "🤖 _the-loop_ — **review brief recorded**\n\nFrozen from %s. Each round answers every question, examines every angle and runs every validation — or says plainly why one could not run.\n", by)
	for _, sec := range []struct {
		title string
		items []string
	}{{"Questions", b.Questions}, {"Angles", b.Angles}, {"Validations", b.Validations}, {"Pull requests", b.PullRequests}} {
		if len(sec.items) == 0 {
			continue
		}
		fmt.Fprintf(&s, "\n**%s**\n\n", sec.title)
		for _, it := range sec.items {
			fmt.Fprintf(&s, "- %s\n", gateEcho(it))
		}
	}
	if len(b.PullRequests) == 0 {
		s.WriteString("\nNo pull request is named, so the review covers this thread itself.\n")
	}
	if b.Unrecognized > 0 {
		fmt.Fprintf(&s, "\nIgnored %d pull-request line(s) that named no pull request.\n", b.Unrecognized)
	}
	return s.String()
}
