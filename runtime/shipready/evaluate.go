// Package shipready decides whether a pull request is ready to ship, from a
// snapshot of what was read from GitHub and the spec folder: its checks
// are green, every review thread is resolved, the reviewer briefing is
// posted and current for the head commit, and the capability docs are
// folded in. It also renders the reviewer briefing comment. It reads and
// writes nothing itself; every decision is a pure function of the snapshot,
// and whatever the snapshot cannot vouch for waits or blocks.
package shipready

import (
	"fmt"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// Verdict is the outcome of the evaluation and of each item.
type Verdict string

// The verdicts, from best to worst: pass; wait (something outside the
// loop's control is still running or unknown); block (something is wrong
// and needs work).
const (
	Pass  Verdict = "pass"
	Wait  Verdict = "wait"
	Block Verdict = "block"
)

// Item names.
const (
	ItemPullRequest = "pull-request"
	ItemChecks      = "checks"
	ItemThreads     = "review-threads"
	ItemBriefing    = "reviewer-briefing"
	ItemDocs        = "capability-docs"
)

// Snapshot is everything the evaluation reads. A zero Snapshot never
// passes: what was not read waits.
type Snapshot struct {
	// PullRequest is the pull request as last read (GetPullRequest).
	PullRequest integrations.PullRequest
	// Checks are the checks read for the head commit (ReadChecks).
	Checks integrations.Checks
	// Threads are the review threads (ListReviewThreads); ThreadsRead
	// says they were read.
	Threads     []integrations.ReviewThread
	ThreadsRead bool
	// Briefing is the posted reviewer briefing (FindBriefing).
	Briefing Briefing
	// Docs is the capability-docs evidence.
	Docs DocsEvidence
}

// Item is one ready-to-ship condition's verdict and the messages a user
// sees for it.
type Item struct {
	Name     string
	Verdict  Verdict
	Messages []string
}

// Result is the evaluation: the worst item verdict, and every item.
type Result struct {
	Verdict Verdict
	Items   []Item
}

// Messages returns the messages of every item that did not pass, in item
// order.
func (r Result) Messages() []string {
	var out []string
	for _, it := range r.Items {
		if it.Verdict != Pass {
			out = append(out, it.Messages...)
		}
	}
	return out
}

var fullSHA = lazyre.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Evaluate decides ready-to-ship for s.
func Evaluate(s Snapshot) Result {
	items := []Item{evalPullRequest(s.PullRequest)}
	head := s.PullRequest.HeadSHA
	if fullSHA().MatchString(head) {
		items = append(items, evalChecks(s.PullRequest, s.Checks), evalThreads(s.Threads, s.ThreadsRead),
			evalBriefing(s.PullRequest, s.Briefing))
	}
	items = append(items, evalDocs(s.PullRequest, s.Docs))
	res := Result{Verdict: Pass, Items: items}
	for _, it := range items {
		res.Verdict = worse(res.Verdict, it.Verdict)
	}
	return res
}

func worse(a, b Verdict) Verdict {
	rank := map[Verdict]int{Pass: 0, Wait: 1, Block: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// short is a commit's first seven characters, as GitHub shows it.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func prName(pr integrations.PullRequest) string {
	if pr.Number <= 0 {
		return "the pull request"
	}
	return fmt.Sprintf("pull request #%d", pr.Number)
}

func evalPullRequest(pr integrations.PullRequest) Item {
	it := Item{Name: ItemPullRequest, Verdict: Pass}
	switch {
	case !fullSHA().MatchString(pr.HeadSHA):
		it.Verdict = Wait
		it.Messages = []string{fmt.Sprintf("the head commit of %s is unknown, so nothing about it can be checked yet", prName(pr))}
	case pr.State == "closed" && !pr.Merged:
		it.Verdict = Block
		it.Messages = []string{fmt.Sprintf("%s is closed without merging; reopen it or open a new one", prName(pr))}
	default:
		it.Messages = []string{fmt.Sprintf("%s is at %s", prName(pr), short(pr.HeadSHA))}
	}
	return it
}

func evalChecks(pr integrations.PullRequest, c integrations.Checks) Item {
	it := Item{Name: ItemChecks}
	head := short(pr.HeadSHA)
	if c.SHA != pr.HeadSHA {
		it.Verdict = Wait
		it.Messages = []string{fmt.Sprintf("checks were read for %s, not for the head %s of %s; waiting for a fresh read", orUnknown(short(c.SHA)), head, prName(pr))}
		return it
	}
	failing, pending := c.InState(integrations.CheckFailed), c.InState(integrations.CheckPending)
	for _, ch := range failing {
		it.Messages = append(it.Messages, fmt.Sprintf("check %s failed on %s: %s", ch.Name, head, orNoURL(ch.URL)))
	}
	for _, ch := range pending {
		it.Messages = append(it.Messages, fmt.Sprintf("waiting for check %s on %s: %s", ch.Name, head, orNoURL(ch.URL)))
	}
	switch {
	case len(failing) > 0 || c.Verdict == integrations.ChecksFailing:
		it.Verdict = Block
	case len(c.All) == 0:
		it.Verdict = Wait
		it.Messages = []string{fmt.Sprintf("no check has reported on %s yet; waiting for CI", head)}
	case len(pending) > 0 || c.Verdict != integrations.ChecksGreen:
		it.Verdict = Wait
	default:
		it.Verdict = Pass
		it.Messages = []string{fmt.Sprintf("checks green on %s (%d)", head, len(c.All))}
	}
	return it
}

func orUnknown(s string) string {
	if s == "" {
		return "no commit"
	}
	return s
}

func orNoURL(u string) string {
	if u == "" {
		return "(no URL given)"
	}
	return u
}

func evalThreads(threads []integrations.ReviewThread, read bool) Item {
	it := Item{Name: ItemThreads, Verdict: Pass}
	if !read {
		it.Verdict = Wait
		it.Messages = []string{"review threads have not been read yet"}
		return it
	}
	open := integrations.Unresolved(threads)
	if len(open) == 0 {
		it.Messages = []string{fmt.Sprintf("all %d review threads resolved", len(threads))}
		return it
	}
	it.Verdict = Wait
	for _, t := range open {
		where := t.Path
		if where != "" && t.Line > 0 {
			where = fmt.Sprintf("%s:%d", t.Path, t.Line)
		}
		if t.Outdated && where != "" {
			where += " (outdated)"
		}
		msg := "unresolved review thread"
		if where != "" {
			msg += " on " + where
		}
		it.Messages = append(it.Messages, msg+": "+orNoURL(t.URL))
	}
	return it
}

func evalBriefing(pr integrations.PullRequest, b Briefing) Item {
	it := Item{Name: ItemBriefing}
	switch {
	case !b.Posted:
		it.Verdict = Wait
		it.Messages = []string{fmt.Sprintf("reviewer briefing not yet posted on %s", prName(pr))}
	case b.HeadSHA != pr.HeadSHA:
		it.Verdict = Wait
		it.Messages = []string{fmt.Sprintf("reviewer briefing on %s describes %s, not the head %s; it is updated in place", prName(pr), orUnknown(short(b.HeadSHA)), short(pr.HeadSHA))}
	default:
		it.Verdict = Pass
		it.Messages = []string{fmt.Sprintf("reviewer briefing posted for %s: %s", short(pr.HeadSHA), orNoURL(b.URL))}
	}
	return it
}
