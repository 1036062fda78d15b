package service

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
)

// A reply posted in the same second as the loop's own edit of its status
// comment leaves the issue's updated time where the poller last saw it
// (GitHub's timestamps have a resolution of one second); it is read on the
// next cycle all the same, because it adds a comment.
func TestAReplyInTheSecondOfTheLoopsOwnEditIsReadNextCycle(t *testing.T) {
	r := newPollRig(t, "alice", "bob")
	second := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	r.fake.SetClock(func() time.Time { return second }) // every stamp falls in one second
	r.toRequirementsApproval()
	for i := 0; i < 2; i++ {
		act := r.cycle()
		require.Equal(t, "wait", act.Status, act.Detail)
	}
	is, _ := r.fake.Issue(r.ref)
	require.True(t, is.Updated.Equal(second), "the loop's edits all fell in the one second")
	r.fake.AddComment(r.ref, "bob", "MEMBER", "Approved.")
	is, _ = r.fake.Issue(r.ref)
	require.True(t, is.Updated.Equal(second), "the reply leaves the updated time where it was")
	act := r.cycle()
	assert.Equal(t, "pass", act.Status, "the reply is read on the next cycle: %s", act.Detail)
	assert.Equal(t, "design", r.state().CurrentNode)
}

// The memo lists an issue's comments again when its updated time or its
// comment count moved, and every time when the listing gives no count.
func TestTheCommentMemoMovesWithTheCount(t *testing.T) {
	fake := providertest.NewGitHub(t)
	prov, err := github.New(github.Options{BaseURL: fake.URL(), Token: fake.Token()})
	require.NoError(t, err)
	ref := integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}
	var m commentMemo
	scope, now := memoScope{"github", "octo/widgets"}, time.Now()
	at := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	list := func(is integrations.Issue) int {
		before := fake.RequestCount()
		_, err := m.comments(context.Background(), prov, scope, "k", ref, is, now)
		require.NoError(t, err)
		return fake.RequestCount() - before
	}
	fake.AddComment(ref, "alice", "OWNER", "one")
	assert.Equal(t, 1, list(integrations.Issue{UpdatedAt: at, Comments: 1, CommentsKnown: true}), "first sight lists")
	assert.Equal(t, 0, list(integrations.Issue{UpdatedAt: at, Comments: 1, CommentsKnown: true}), "nothing moved: the memo answers")
	fake.AddComment(ref, "bob", "MEMBER", "two")
	assert.Equal(t, 1, list(integrations.Issue{UpdatedAt: at, Comments: 2, CommentsKnown: true}), "a new comment in the same second moves the count")
	assert.Equal(t, 1, list(integrations.Issue{UpdatedAt: at.Add(time.Second), Comments: 2, CommentsKnown: true}), "an edit moves the updated time")
	assert.Equal(t, 1, list(integrations.Issue{UpdatedAt: at.Add(time.Second)}), "no count: listed")
	assert.Equal(t, 1, list(integrations.Issue{UpdatedAt: at.Add(time.Second)}), "no count: listed every time")
}
