package hooks

import "github.com/the-loop/the-loop/runtime"

// init registers the human-side hooks: gates, their side effects and the
// checks a human signs.
func init() {
	runtime.Register(hookSetPhaseLabel, setPhaseLabel)
	runtime.Register(hookRequestReview, requestReview)
	runtime.Register(hookNotify, notify)
	runtime.Register(hookPublishArtifact, publishArtifact)
	runtime.Register(hookDeliverAssignment, deliverAssignment)
	runtime.Register(hookPostPhaseSelection, postPhaseSelection)
	runtime.Register(hookClassifyPhaseSelection, classifyPhaseSelection)
	runtime.Register(hookClassifyFeedback, classifyFeedback)
	runtime.Register(hookRecordFeedback, recordFeedback)
	runtime.Register(hookPostGoalRequest, postGoalRequest)
	runtime.Register(hookClassifyGoal, classifyGoal)
	runtime.Register(hookPostReviewBrief, postReviewBrief)
	runtime.Register(hookClassifyReviewBrief, classifyReviewBrief)
	runtime.Register(hookAdhocReply, classifyAdhocReply)
	runtime.Register(hookSecuritySignOff, securitySignOff)
}
