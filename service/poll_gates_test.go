package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

// toRequirementsApproval arms issue-1, answers phase-selection with the
// brainstorm unticked, and claims requirements-definition with a
// requirements document in the checkout: the item then waits at
// requirements-approval, which the poller evaluates.
func (r *pollRig) toRequirementsApproval() {
	r.t.Helper()
	req, err := os.ReadFile(filepath.Join("..", "testdata", "repo", "docs", "specs", "issue-3", "requirements.md"))
	require.NoError(r.t, err)
	dir := filepath.Join(r.repo, "docs", "specs", "issue-1")
	require.NoError(r.t, os.MkdirAll(dir, 0o755))
	require.NoError(r.t, os.WriteFile(filepath.Join(dir, "requirements.md"), []byte(strings.Replace(string(req), "status: approved\napprovedBy: [owner]\n", "", 1)), 0o644))
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	r.fake.AddComment(r.ref, "alice", "OWNER", "- [ ] brainstorming\n\nthe-loop execute")
	require.Equal(r.t, "pass", r.cycle().Status)
	env, err := r.svc.Complete(context.Background(), CompleteRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}})
	require.NoError(r.t, err)
	require.Equal(r.t, "requirements-approval", env.CurrentNode, "%+v", env)
}

func (r *pollRig) comments(marker string) int {
	return len(filterMarker(r.fake.Comments(r.ref), marker))
}

func TestPollerRetractionSupersedesAnApproval(t *testing.T) {
	r := newPollRig(t, "alice", "bob")
	r.toRequirementsApproval()
	r.fake.AddComment(r.ref, "bob", "MEMBER", "LGTM")
	r.fake.AddComment(r.ref, "bob", "MEMBER", "Wait, I take back my LGTM.")
	for i := 0; i < 2; i++ {
		act := r.cycle()
		assert.Equal(t, "wait", act.Status, act.Detail)
		assert.Contains(t, act.Detail, "the newest authorized reply (by @bob) is not decisive")
	}
	st := r.state()
	assert.Equal(t, "requirements-approval", st.CurrentNode)
	assert.NotContains(t, st.Decisions, "requirements-approval", "the retracted approval decides nothing")
	assert.Equal(t, 1, r.comments("<!-- the-loop:reply-help requirements-approval -->"), "one help comment, never repeated")

	r.fake.AddComment(r.ref, "bob", "MEMBER", "Approved.")
	act := r.cycle()
	assert.Equal(t, "pass", act.Status, act.Detail)
	d := r.state().Decisions["requirements-approval"]
	require.NotNil(t, d)
	assert.Equal(t, "@bob", d.By)
	assert.Equal(t, runtime.Verified, r.svc.deps.Signer.Verify(d))
	require.Len(t, d.Data[gates.EvidenceKey], 1)
}

func TestPollerEditedCommentsAreNeverDecisions(t *testing.T) {
	r := newPollRig(t, "alice", "bob")
	r.fake.AddComment(r.ref, "alice", "OWNER", "Looking at this next week.")
	c := r.fake.AddComment(r.ref, "alice", "OWNER", "thinking about it")
	_, ok := r.fake.EditComment(r.ref, c.ID, "the-loop start")
	require.True(t, ok)
	assert.Equal(t, "none", r.cycle().Action, "an edited comment never arms")

	r.toRequirementsApproval()
	reply := r.fake.AddComment(r.ref, "bob", "MEMBER", "Let me read it first.")
	assert.Equal(t, "wait", r.cycle().Status)
	_, ok = r.fake.EditComment(r.ref, reply.ID, "Approved.")
	require.True(t, ok)
	for i := 0; i < 2; i++ {
		act := r.cycle()
		assert.Equal(t, "wait", act.Status)
		assert.Contains(t, act.Detail, "was edited after it was posted")
	}
	assert.NotContains(t, r.state().Decisions, "requirements-approval")
	assert.Equal(t, 1, r.comments("<!-- the-loop:edited requirements-approval "), "one notice per edited comment")

	approval := r.fake.AddComment(r.ref, "bob", "MEMBER", "Approved.")
	require.Equal(t, "pass", r.cycle().Status, "a fresh reply decides")
	d := r.state().Decisions["requirements-approval"]
	require.NotNil(t, d)
	ev := d.Data[gates.EvidenceKey].([]any)[0].(map[string]any)
	assert.Equal(t, gates.BodyHash("Approved."), ev["sha256"])

	// A later edit of the comment the decision rests on is an event, recorded once.
	_, ok = r.fake.EditComment(r.ref, approval.ID, "Approved. Actually, not yet.")
	require.True(t, ok)
	r.cycle()
	r.cycle()
	evlog, err := r.svc.Events(context.Background(), ItemRequest{Repo: r.repo, WorkItem: "issue-1"})
	evs := evlog.Events
	require.NoError(t, err)
	var changed []runtime.EventRecord
	for _, e := range evs {
		if e.Name == gates.EventDecisionCommentChanged {
			changed = append(changed, e)
		}
	}
	require.Len(t, changed, 1)
	assert.Equal(t, "requirements-approval", changed[0].Node)
	assert.Equal(t, "edited", changed[0].Data["change"])
	assert.Equal(t, gates.BodyHash("Approved. Actually, not yet."), changed[0].Data["currentSha256"])
}
