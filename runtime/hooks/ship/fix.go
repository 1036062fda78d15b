package ship

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/plaintext"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/shipready"
)

// Bounds of what a fix round quotes, so the next session's brief stays a
// brief: the failed checks read in detail, and each quoted text's length.
const (
	maxDetailedChecks = 5
	maxThreads        = 20
	maxComments       = 10
	maxTitle          = 200
	maxOutput         = 2000
	maxAnnotation     = 500
	maxComment        = 2000
)

// reading is what ready-to-ship read of one pull request.
type reading struct {
	t    target
	snap shipready.Snapshot
}

// sendBack decides whether a reading sends the work back to be fixed: a
// check failed on a head (the graph routing ci-failed somewhere), or a
// review thread holds an authorized reviewer's words no fix round has
// carried yet (the graph routing threads-unresolved). It returns the
// node's result and true when it does. A failing check past
// ci.maxFixAttempts escalates instead, with the figures. msgs are the
// reading's own messages.
func sendBack(hc *runtime.HookContext, p integrations.Provider, rs []reading, msgs []string) (runtime.Result, bool) {
	if hc.BoolParam("atGate") || hc.Graph == nil || hc.State == nil {
		return runtime.Result{}, false
	}
	for _, r := range rs {
		if r.snap.PullRequest.State == "closed" && !r.snap.PullRequest.Merged {
			return runtime.Result{}, false // a closed pull request is not fixed by more work
		}
	}
	node := hc.NodeID()
	to, ciEdge := hc.Graph.Next(node, runtime.OutcomeCIFailed)
	var failed []reading
	for _, r := range rs {
		if r.snap.Checks.SHA == r.snap.PullRequest.HeadSHA && len(r.snap.Checks.InState(integrations.CheckFailed)) > 0 {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 && ciEdge {
		return ciRound(hc, p, failed, rs, msgs, to), true
	}
	to, threadEdge := hc.Graph.Next(node, runtime.OutcomeThreadsUnresolved)
	if !threadEdge {
		return runtime.Result{}, false
	}
	threads, fresh := unansweredThreads(hc, rs)
	if !fresh {
		return runtime.Result{}, false
	}
	fr := &runtime.FixRound{Reason: runtime.OutcomeThreadsUnresolved, Heads: heads(rs), Threads: threads, Also: others(msgs, "unresolved review thread")}
	var out []string
	for _, th := range threads {
		out = append(out, fmt.Sprintf("%s holds an authorized reviewer's unanswered words: %s", threadName(th), orNoURL(th.URL)))
	}
	out = append(out, fmt.Sprintf("the work goes back to %s with the threads' words", to))
	return passing(runtime.OutcomeThreadsUnresolved, fr, out), true
}

// ciRound is the round of failed checks, or the escalation once
// ci.maxFixAttempts rounds were sent back since the last force.
func ciRound(hc *runtime.HookContext, p integrations.Provider, failed, rs []reading, msgs []string, to string) runtime.Result {
	limit := hc.Config.CI.MaxFixAttempts
	if limit <= 0 {
		limit = 3
	}
	var failing []string
	for _, r := range failed {
		for _, c := range r.snap.Checks.InState(integrations.CheckFailed) {
			failing = append(failing, fmt.Sprintf("%scheck %s failed on %s (%s)", prefixOf(rs, r.t), c.Name, short(r.snap.PullRequest.HeadSHA), orNoURL(c.URL)))
		}
	}
	earlier := hc.State.CIFixRounds()
	if len(earlier) >= limit {
		var past []string
		for _, e := range earlier {
			past = append(past, roundFigure(e))
		}
		why := fmt.Sprintf("CI still fails after %d fix round(s), the most ci.maxFixAttempts (%d) allows: %s; the rounds sent back: %s",
			len(earlier), limit, strings.Join(failing, "; "), strings.Join(past, "; "))
		return runtime.Result{Status: runtime.Block, Hook: HookReadyToShip, Retriable: false, Data: map[string]any{runtime.DataEscalate: why},
			Messages: []runtime.Message{runtime.Errorf("", "%s", why)}}
	}
	fr := &runtime.FixRound{Reason: runtime.OutcomeCIFailed, Heads: heads(rs), Also: others(msgs, "check ", "waiting for check ", "unresolved review thread")}
	for _, r := range failed {
		for _, c := range r.snap.Checks.InState(integrations.CheckFailed) {
			fr.Checks = append(fr.Checks, checkOf(hc, p, r, c, len(fr.Checks) < maxDetailedChecks))
		}
	}
	fr.Threads, _ = unansweredThreads(hc, rs)
	out := append(failing, fmt.Sprintf("the work goes back to %s with what CI said: CI fix round %d of %d (ci.maxFixAttempts)", to, len(earlier)+1, limit))
	return passing(runtime.OutcomeCIFailed, fr, out)
}

// passing is a pass routing on outcome, carrying the round.
func passing(outcome string, fr *runtime.FixRound, msgs []string) runtime.Result {
	res := runtime.OK(HookReadyToShip, map[string]any{"outcome": outcome, runtime.DataFixRound: fr})
	for _, m := range msgs {
		res.Messages = append(res.Messages, runtime.Message{Text: m, Severity: runtime.SevInfo})
	}
	return res
}

// checkOf is failed check c of reading r as a fix round quotes it: with
// its output, annotations and job log when detailed (and the code host can
// say), else its name, conclusion and link.
func checkOf(hc *runtime.HookContext, p integrations.Provider, r reading, c integrations.Check, detailed bool) runtime.FixCheck {
	fc := runtime.FixCheck{PullRequest: r.t.name, Head: r.snap.PullRequest.HeadSHA, Name: c.Name, Conclusion: c.Detail, URL: c.URL,
		Title: quote(c.Title, maxTitle), Summary: quote(c.Summary, maxOutput), Text: quote(c.Text, maxOutput)}
	if !detailed {
		fc.Notes = []string{fmt.Sprintf("only the first %d failed checks are read in detail", maxDetailedChecks)}
		return fc
	}
	dr, ok := p.(integrations.CheckDetailReader)
	if !ok {
		fc.Notes = []string{"the code host cannot say why a check failed (read-check-details)"}
		return fc
	}
	d, err := dr.ReadCheckDetails(hc.Context, r.t.ref.Owner, r.t.ref.Repo, c)
	if err != nil {
		fc.Notes = []string{fmt.Sprintf("why %s failed could not be read from GitHub (%v)", c.Name, err)}
		return fc
	}
	for _, a := range d.Annotations {
		fc.Annotations = append(fc.Annotations, runtime.FixAnnotation{Path: quote(a.Path, maxTitle), StartLine: a.StartLine, EndLine: a.EndLine,
			Level: a.Level, Title: quote(a.Title, maxTitle), Message: quote(a.Message, maxAnnotation)})
	}
	fc.Log, fc.LogLines, fc.Notes = d.Log, d.LogLines, d.Notes
	return fc
}

// unansweredThreads are the unresolved review threads of the readings,
// each with its authorized reviewers' comments; fresh says one of them
// holds a comment no earlier fix round carried. Comments by anyone else
// are counted, never quoted.
func unansweredThreads(hc *runtime.HookContext, rs []reading) ([]runtime.FixThread, bool) {
	var out []runtime.FixThread
	fresh := false
	for _, r := range rs {
		for _, th := range integrations.Unresolved(r.snap.Threads) {
			if len(out) == maxThreads {
				return out, fresh
			}
			ft := runtime.FixThread{PullRequest: r.t.name, ID: th.ID, Path: th.Path, Line: th.Line, Outdated: th.Outdated, URL: th.URL}
			asComments := make([]integrations.Comment, len(th.Comments))
			for i, c := range th.Comments {
				asComments[i] = integrations.Comment{ID: c.ID, Author: c.Author, Body: c.Body, URL: c.URL, CreatedAt: c.CreatedAt}
			}
			authorized := authz.AuthorizedComments(hc.Config, asComments)
			ft.Withheld = len(th.Comments) - len(authorized)
			if len(authorized) == 0 {
				continue // nobody authorized spoke: it holds shipping, it does not route work
			}
			handed := hc.State.HandedComment(th.ID)
			for _, c := range authorized[max(0, len(authorized)-maxComments):] {
				fresh = fresh || c.ID > handed
				ft.Comments = append(ft.Comments, runtime.FixComment{ID: c.ID, Author: authz.NormalizeLogin(c.Author), Body: quote(c.Body, maxComment),
					URL: c.URL, At: stamp(c.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))})
			}
			out = append(out, ft)
		}
	}
	return out, fresh
}

// reviewRound is the round a changes-requested answer at an approval gate
// carries into the visit it sends the work back to: the deciding review's
// words and the pull requests' unresolved threads (nil when nothing could
// be read).
func reviewRound(hc *runtime.HookContext) *runtime.FixRound {
	fr := &runtime.FixRound{Reason: runtime.OutcomeChangesRequested}
	for i := len(hc.Results) - 1; i >= 0 && fr.Review == nil; i-- {
		if cs, ok := hc.Results[i].Data["comments"].([]integrations.Comment); ok && len(cs) > 0 {
			c := cs[len(cs)-1]
			fr.Review = &runtime.FixComment{ID: c.ID, Author: authz.NormalizeLogin(c.Author), Body: quote(c.Body, maxComment), URL: c.URL}
		}
	}
	ts, _ := targets(hc)
	p := host(hc)
	if tl, ok := p.(integrations.ReviewThreadLister); ok {
		var rs []reading
		for _, t := range ts {
			threads, err := tl.ListReviewThreads(hc.Context, t.ref.Owner, t.ref.Repo, t.ref.Number)
			if err != nil {
				fr.Also = append(fr.Also, fmt.Sprintf("the review threads of %s could not be read (%v)", t.name, err))
				continue
			}
			rs = append(rs, reading{t: t, snap: shipready.Snapshot{Threads: threads, ThreadsRead: true}})
		}
		fr.Threads, _ = unansweredThreads(hc, rs)
	}
	if fr.Review == nil && len(fr.Threads) == 0 {
		return nil
	}
	return fr
}

// roundFigure is one earlier CI round as the escalation lists it.
func roundFigure(r *runtime.FixRound) string {
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
	}
	head := ""
	if len(r.Checks) > 0 {
		head = short(r.Checks[0].Head) + " "
	}
	return fmt.Sprintf("%s(%s) at %s", head, strings.Join(names, ", "), r.At)
}

// heads names every reading's pull request at its head.
func heads(rs []reading) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.t.name+"@"+r.snap.PullRequest.HeadSHA)
	}
	return out
}

// others are the reading's messages not starting with any of prefixes
// (those the round carries in detail).
func others(msgs []string, prefixes ...string) []string {
	var out []string
	for _, m := range msgs {
		body := m
		if _, rest, ok := strings.Cut(m, ": "); ok && strings.Contains(m[:len(m)-len(rest)], "#") {
			body = rest
		}
		keep := true
		for _, p := range prefixes {
			keep = keep && !strings.HasPrefix(body, p)
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}

func threadName(t runtime.FixThread) string {
	where := t.Path
	if where != "" && t.Line > 0 {
		where = fmt.Sprintf("%s:%d", t.Path, t.Line)
	}
	if where == "" {
		return "a review thread of " + t.PullRequest
	}
	return fmt.Sprintf("the review thread on %s of %s", where, t.PullRequest)
}

func prefixOf(rs []reading, t target) string {
	if len(rs) < 2 {
		return ""
	}
	return t.name + ": "
}

// quote is text from GitHub or the CI as a round keeps it: printable, and
// at most n bytes (cut on a rune boundary, marked).
func quote(s string, n int) string {
	s = strings.TrimSpace(plaintext.Printable(s))
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + " …(cut)"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func orNoURL(u string) string {
	if u == "" {
		return "(no URL given)"
	}
	return u
}

// stamp drops a zero time.
func stamp(s string) string {
	if strings.HasPrefix(s, "0001-") {
		return ""
	}
	return s
}
