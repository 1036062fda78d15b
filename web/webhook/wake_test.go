package webhook

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/service"
)

// toRequirementsApproval arms issue-1 and walks it to requirements-approval,
// the human gate the poller evaluates.
func (r *rig) toRequirementsApproval(p *service.Poller) {
	r.t.Helper()
	req, err := os.ReadFile(filepath.Join("..", "..", "testdata", "repo", "docs", "specs", "issue-3", "requirements.md"))
	require.NoError(r.t, err)
	dir := filepath.Join(r.repo, "docs", "specs", "issue-1")
	require.NoError(r.t, os.MkdirAll(dir, 0o755))
	require.NoError(r.t, os.WriteFile(filepath.Join(dir, "requirements.md"), []byte(strings.Replace(string(req), "status: approved\napprovedBy: [owner]\n", "", 1)), 0o644))
	ctx := context.Background()
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	p.RunOnce(ctx)
	r.fake.AddComment(r.ref, "alice", "OWNER", "- [ ] brainstorming\n\nthe-loop execute")
	p.RunOnce(ctx)
	res, err := r.svc.Complete(ctx, service.CompleteRequest{ItemRequest: service.ItemRequest{Repo: r.repo, WorkItem: "issue-1"}})
	require.NoError(r.t, err)
	require.Equal(r.t, "requirements-approval", res.CurrentNode, "%+v", res)
}

func (r *rig) node() string {
	st, err := r.svc.Status(context.Background(), service.ItemRequest{Repo: r.repo, WorkItem: "issue-1"})
	require.NoError(r.t, err)
	return st.CurrentNode
}

// A reply delivered by webhook is decided without waiting for the sweep
// (an hour here): the delivery wakes the poller, whose cycle reads the
// reply through the API and passes the gate.
func TestAReplyDeliveredByWebhookIsDecidedWithoutTheSweep(t *testing.T) {
	r := newRig(t)
	status := filepath.Join(t.TempDir(), "poll-status.json")
	p := &service.Poller{Svc: r.svc, Sources: r.svc.Config().Polling.Sources, Wake: r.wake}
	r.toRequirementsApproval(p)
	p.StatusPath = status // written at the end of each cycle Run runs

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, time.Hour) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	// The first cycle is over once its heartbeat is written; the reply
	// comes after it, so only a wake can read it within the hour.
	require.Eventually(t, func() bool { _, err := os.Stat(status); return err == nil }, 10*time.Second, 5*time.Millisecond, "the first cycle runs at start")
	require.Equal(t, "requirements-approval", r.node())

	r.fake.AddComment(r.ref, "bob", "MEMBER", "Approved.")
	start := time.Now()
	code, body := r.post("issue_comment", "d-approval", commentPayload("octo/widgets", 1, "bob", "Approved."), nil)
	require.Equal(t, http.StatusAccepted, code, body)
	require.Eventually(t, func() bool { return r.node() != "requirements-approval" }, 10*time.Second, 5*time.Millisecond,
		"the approval is decided on the wake, not at the hour's sweep")
	t.Logf("webhook → decision: %s", time.Since(start).Round(time.Millisecond))
}
