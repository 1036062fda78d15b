package gates

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/classify"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
)

const HookClassifyFeedback = "classify-feedback"

// Decision provenance channels.
const (
	gateViaComment  = "comment"
	gateViaRiskTier = "risk-tier"
	// gateSelf attributes a decision the loop took by rule.
	gateSelf = "the-loop"
)

// plannedAbsent reports whether every name of entry is a planned absence.
func plannedAbsent(hc *runtime.HookContext, entry string) bool {
	names := runtime.Alternatives(entry)
	for _, n := range names {
		if !hc.SkippedArtifacts[n] {
			return false
		}
	}
	return len(names) > 0
}

// gateReasonLimit caps an external classifier's reason kept in a decision.
const gateReasonLimit = 500

// ClassifyFeedback is the approval gate. A recorded decision answers it
// (under check a recorded change request keeps it waiting). When param
// subject names an artifact of which no alternative exists there is nothing
// to review and it skips. When param autonomousBelowTier is set and the
// work item's RiskTier is below it, the gate approves by rule. Otherwise the
// newest authorized reply of this visit decides (a later reply that is not
// an approval supersedes an earlier one): an edited reply is never a
// decision (the gate says so once and waits); the deterministic reader
// classifies it, fail-closed (package classify); when
// routing.classifier.command is set (and not under check) that program
// decides instead, except that it can never overturn a change request into
// an approval, its approval counts only for a reply nothing withholds
// (classify.Permits), and an invalid answer keeps the gate waiting. A reply
// that uses the words of a decision the reader does not accept gets one help
// comment per visit saying which phrasings it reads.
func ClassifyFeedback(hc *runtime.HookContext) (runtime.Result, error) {
	if d, ok := hc.Recorded(); ok {
		if r, stale, err := gateStaleApproval(hc, HookClassifyFeedback, d); err != nil || stale {
			return r, err
		}
		return gateRecordedOutcome(hc, HookClassifyFeedback, d, runtime.OutcomeChangesRequested, "changes requested by %s; the gate asks again once the artifact is revised"), nil
	}
	subject := hc.Param("subject")
	if len(runtime.Alternatives(subject)) > 0 {
		name, _, err := gateReadFirst(hc, subject)
		if err != nil {
			return runtime.Result{}, err
		}
		if name == "" {
			// Nothing to review is a pass only when its absence is planned
			// (its authoring node was skipped) or the graph says the subject
			// is optional (brainstorming may produce nothing); otherwise the
			// gate waits for the artifact rather than approving a void.
			if hc.BoolParam("subjectOptional") || plannedAbsent(hc, subject) {
				return runtime.Skipped(HookClassifyFeedback, fmt.Sprintf("nothing to review: %s does not exist", gateNames(subject))), nil
			}
			return runtime.Waiting(HookClassifyFeedback, fmt.Sprintf("nothing to review yet: %s does not exist", gateNames(subject))), nil
		}
	}
	below, err := hc.IntParam("autonomousBelowTier", 0)
	if err != nil {
		return runtime.Result{}, err
	}
	if below > 0 {
		if tier := RiskTier(hc); tier < below {
			d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGate, Outcome: runtime.OutcomeApproved, Via: gateViaRiskTier, By: gateSelf,
				Data: gateData("riskTier", tier, "autonomousBelowTier", below)}
			return runtime.OK(HookClassifyFeedback, gateData("outcome", runtime.OutcomeApproved, "decision", d, "riskTier", tier)), nil
		}
	}
	comments := authz.AuthorizedComments(hc.Config, gateCurrentVisit(hc, gateEventComments(hc)))
	if len(comments) == 0 {
		return runtime.Waiting(HookClassifyFeedback, "no authorized feedback yet"), nil
	}
	decider := comments[len(comments)-1]
	if authz.Edited(decider) {
		return gateWaitEdited(hc, HookClassifyFeedback, decider), nil
	}
	verdict := classify.ClassifyFor(decider.Body, runtime.Alternatives(subject))
	source := "deterministic"
	if cmd := hc.Config.Routing.Classifier.Command; len(cmd) > 0 && !hc.ReadOnly {
		ext, err := externalVerdict(hc, subject, comments)
		if err != nil {
			return runtime.Waiting(HookClassifyFeedback, fmt.Sprintf("the feedback classifier gave no valid answer (%v); the gate stays open", err)), nil
		}
		if verdict.Outcome != classify.ChangesRequested {
			verdict, source = ext, "external"
			if ok, why := classify.Permits(decider.Body); verdict.Outcome.Approves() && !ok {
				verdict = classify.Verdict{Outcome: classify.Undecided, Reason: "the classifier's approval is withheld: " + why}
			}
		}
	}
	if !verdict.Outcome.Decisive() {
		r := runtime.Waiting(HookClassifyFeedback, fmt.Sprintf("the newest authorized reply (by %s) is not decisive: %s; the gate stays open", authz.At(decider.Author), verdict.Reason))
		if classify.Attempted(decider.Body) {
			if why := gateHelp(hc, HookClassifyFeedback, decider, verdict.Reason); why != "" {
				r.Data = gateData("error", why)
			}
		}
		return r, nil
	}
	reason := verdict.Reason
	if len(reason) > gateReasonLimit {
		reason = gateTruncate(reason, gateReasonLimit)
	}
	d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGate, Outcome: string(verdict.Outcome), Via: gateViaComment,
		By: authz.At(decider.Author), CommentURL: decider.URL, Data: gateData("classifier", source, "reason", reason, EvidenceKey, gateEvidence(decider))}
	return runtime.OK(HookClassifyFeedback, gateData("outcome", string(verdict.Outcome), "decision", d,
		"comments", []integrations.Comment{decider}, "feedback", comments)), nil
}

// externalVerdict asks the operator's classifier program.
func externalVerdict(hc *runtime.HookContext, subject string, comments []integrations.Comment) (classify.Verdict, error) {
	cfg := hc.Config.Routing.Classifier
	in := classify.ExternalInput{Gate: hc.NodeID(), Subject: subject}
	for _, c := range comments {
		in.Comments = append(in.Comments, classify.ExternalComment{Author: authz.NormalizeLogin(c.Author), Body: c.Body, URL: c.URL})
	}
	ctx := hc.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ext := classify.External{Command: cfg.Command, Timeout: time.Duration(cfg.TimeoutSeconds) * time.Second, Retries: cfg.Retries}
	return ext.Classify(ctx, in)
}

// gateStaleApproval keeps a gate open whose recorded approval no longer
// covers what it approved: an artifact it locked changed or went since
// (artifacts.CheckBinding), or, under --recompute, the approval records no
// hash of what it approved. The wait carries runtime.StaleKey.
func gateStaleApproval(hc *runtime.HookContext, hook string, d *runtime.Decision) (runtime.Result, bool, error) {
	if d.Outcome != runtime.OutcomeApproved && d.Outcome != runtime.OutcomeApprovedWithComments {
		return runtime.Result{}, false, nil
	}
	b, err := artifacts.CheckBinding(hc, d)
	if err != nil {
		return runtime.Result{}, false, fmt.Errorf("read what the approval by %s covers: %w", d.By, err)
	}
	var parts []string
	if len(b.Changed) > 0 {
		parts = append(parts, fmt.Sprintf("%s changed after %s approved it", strings.Join(b.Changed, ", "), d.By))
	}
	if len(b.Gone) > 0 {
		parts = append(parts, fmt.Sprintf("%s is gone since %s approved it", strings.Join(b.Gone, ", "), d.By))
	}
	var msg string
	switch {
	case len(parts) > 0:
		msg = strings.Join(parts, "; ") + ": the approval no longer counts, and the gate asks again"
	case b.Unbound && hc.Strict:
		msg = fmt.Sprintf("the approval by %s records no hash of what it approved (it was recorded before approvals were bound to the approved bytes), so under --recompute it does not count; re-sign it on the poller's host with `the-loop keys resign`, or the gate asks again", d.By)
	default:
		return runtime.Result{}, false, nil
	}
	r := runtime.Waiting(hook, msg)
	r.Data = gateData(runtime.StaleKey, b.Stale())
	return r, true, nil
}

// gateRecordedOutcome answers a gate from its recorded decision. Under check
// a decision sending work back (pending) keeps the gate waiting with the
// message: a gate that asked for more is not satisfied. The recorded
// reviewer is passed on as the approver for lock-artifacts.
func gateRecordedOutcome(hc *runtime.HookContext, hook string, d *runtime.Decision, pending, waitFormat string) runtime.Result {
	if d.Outcome == pending && hc.ReadOnly {
		return runtime.Waiting(hook, fmt.Sprintf(waitFormat, d.By))
	}
	data := gateData("outcome", d.Outcome)
	if d.Via == gateViaComment {
		data["comments"] = []integrations.Comment{{Author: d.By, URL: d.CommentURL}}
	}
	return runtime.OK(hook, data)
}
