package service

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A GitHub issue may wait for a Jira ticket, and a Jira ticket for a GitHub
// issue, by qualified reference: each is held until the other tracker's
// ticket is closed as done.
func TestDependenciesAcrossTrackers(t *testing.T) {
	r := newDAGRig(t)
	ctx := context.Background()
	firewall := r.jira.SeedIssue("Open the firewall", nil, true)
	api := r.issue("API")
	require.NoError(t, r.ghp.EditIssueBody(ctx, api, "The API.\n\nBlocked by: jira:"+firewall.Key+"\n"))
	docs := r.jira.SeedIssue("Document the API", nil, true)
	r.jira.AddRemoteLink(docs, "is blocked by", fmt.Sprintf("http://%s/octo/widgets/issues/%d", r.host, api.Number))

	r.say(api, "alice", "the-loop start")
	r.say(docs, "alice", "the-loop start")
	r.cycle()
	r.say(api, "alice", execute)
	r.say(docs, "alice", execute)
	acts := r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-2"))
	assert.Equal(t, "blocked by jira:"+firewall.Key+" (not started)", acts["issue-2"].Dependencies)
	assert.Equal(t, phaseSelection, r.at(docs.Key))
	assert.Equal(t, fmt.Sprintf("blocked by github:%s/octo/widgets#2 (at phase-selection)", r.host), acts[docs.Key].Dependencies)

	r.done(firewall)
	r.cycle()
	assert.NotEqual(t, phaseSelection, r.at("issue-2"), "the Jira ticket closed as done releases the GitHub issue")
	assert.Equal(t, phaseSelection, r.at(docs.Key), "the Jira ticket still waits for the GitHub issue")
	r.done(api)
	r.cycle()
	assert.NotEqual(t, phaseSelection, r.at(docs.Key), "the GitHub issue closed as completed releases the Jira ticket")
}

// A blocker closed as not planned never finishes: what waits for it stays
// held, and says why.
func TestABlockerClosedAsNotPlannedKeepsHolding(t *testing.T) {
	r := newDAGRig(t)
	a, b := r.issue("A"), r.issue("B")
	r.gh.AddBlocker(b, a)
	r.gh.SetState(a, false, "not_planned")
	r.say(b, "alice", "the-loop start")
	r.cycle()
	r.say(b, "alice", execute)
	acts := r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-3"))
	assert.Equal(t, "blocked by #2 (closed as not_planned)", acts["issue-3"].Dependencies)
}
