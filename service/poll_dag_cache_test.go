package service

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// clockRig is the dagRig with a clock the test moves.
type clockRig struct {
	*dagRig
	mu  sync.Mutex
	now time.Time
}

func newClockRig(t *testing.T) *clockRig {
	t.Helper()
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, filepath.Dir(repoconfig.Path)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, repoconfig.Path), []byte("ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"), 0o644))
	c := &clockRig{now: time.Now()}
	c.dagRig = newDAGRigIn(t, repo, func(d *Deps) {
		d.Clock = func() time.Time {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.now
		}
	})
	return c
}

func (c *clockRig) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// relationReads runs one cycle and returns its actions with the REST
// relation reads and GraphQL queries it sent.
func (r *dagRig) relationReads() (acts map[string]ItemAction, rest, graphQL int) {
	r.t.Helper()
	rest0, gql0 := r.gh.RelationReads()
	acts = r.cycle()
	rest1, gql1 := r.gh.RelationReads()
	// The fake logs a request once its handler returned, which may be
	// after the client read the answer: wait for the log to settle.
	for range 50 {
		time.Sleep(10 * time.Millisecond)
		rest2, gql2 := r.gh.RelationReads()
		if rest2 == rest1 && gql2 == gql1 {
			break
		}
		rest1, gql1 = rest2, gql2
	}
	return acts, rest1 - rest0, gql1 - gql0
}

// chain arms Schema, API (blocked by Schema) and CLI (blocked by API),
// Schema being a sub-issue of the seeded ticket, and lets the poller settle.
func (r *dagRig) chain() (schema, api, cli integrations.Ref) {
	r.t.Helper()
	schema, api, cli = r.issue("Schema"), r.issue("API"), r.issue("CLI")
	r.gh.AddBlocker(api, schema)
	r.gh.AddBlocker(cli, api)
	r.gh.AddSubIssue(r.gh.Ticket(), schema)
	for _, ref := range []integrations.Ref{schema, api, cli} {
		r.say(ref, "alice", "the-loop start")
	}
	r.cycles(3)
	return schema, api, cli
}

// An idle cycle with dependencies on sends what the same cycle sends with
// them off: the listings, and no relation read at all.
func TestAnIdleDependencyCycleSendsNoRelationRead(t *testing.T) {
	r := newDAGRig(t)
	r.chain()
	requests := r.gh.RequestCount()
	acts, rest, gql := r.relationReads()
	assert.Equal(t, []int{0, 0}, []int{rest, gql}, "nothing changed: every relation is answered from the last read")
	assert.Equal(t, 2, r.gh.RequestCount()-requests, "the listings of issues and pull requests alone, as with dependencies off")
	assert.Equal(t, "blocked by #3 (at phase-selection)", acts["issue-4"].Dependencies)
}

// A change to a listed issue (a blocker added, a blocker closed) is read on
// the next cycle, in one query, and decides that cycle.
func TestAChangedItemIsReadAgainOnTheNextCycle(t *testing.T) {
	r := newDAGRig(t)
	schema, api, cli := r.chain()
	extra := r.issue("Docs")
	r.cycle()

	r.gh.AddBlocker(schema, extra)
	acts, rest, gql := r.relationReads()
	assert.Equal(t, []int{0, 2}, []int{rest, gql}, "the kept reads the change touches in one query, the ticket it newly names in another")
	assert.Equal(t, "blocked by #5 (not started)", acts["issue-2"].Dependencies, "a blocker added is seen on the next cycle")

	r.gh.SetState(extra, false, "completed")
	acts, rest, gql = r.relationReads()
	assert.Equal(t, []int{0, 1}, []int{rest, gql}, "the closed blocker and what names it, in one query")
	assert.Equal(t, "ready", acts["issue-2"].Dependencies, "a blocker closed as done releases on the next cycle")

	r.gh.RemoveBlocker(cli, api)
	acts, _, _ = r.relationReads()
	assert.Equal(t, "ready", acts["issue-4"].Dependencies, "a dependency removed is seen on the next cycle")

	_, rest, gql = r.relationReads()
	assert.Equal(t, []int{0, 0}, []int{rest, gql}, "and the cycle after is idle again")
}

// A blocker in a repository no source polls has no listing to vouch for it:
// it is read every cycle (one query for all such tickets), so its closing
// releases on the next cycle.
func TestABlockerInAnUnpolledRepositoryIsReadEveryCycle(t *testing.T) {
	r := newDAGRig(t)
	item := r.issue("Item")
	other := r.gh.SeedIssueIn("octo/gadgets", "Elsewhere")
	r.gh.AddBlocker(item, other)
	r.say(item, "alice", "the-loop start")
	r.cycles(3)
	acts, rest, gql := r.relationReads()
	assert.Equal(t, []int{0, 1}, []int{rest, gql}, "the unpolled ticket's read, one query")
	assert.Equal(t, "blocked by octo/gadgets#1 (not started)", acts["issue-2"].Dependencies)

	r.gh.SetState(other, false, "completed")
	acts = r.cycle()
	assert.Equal(t, "ready", acts["issue-2"].Dependencies)
}

// After dag.fullReadMinutes every kept read is read again, in one query,
// whatever the listing says.
func TestEveryRelationIsReadAgainAfterTheFullReadInterval(t *testing.T) {
	r := newClockRig(t)
	r.chain()
	_, _, gql := r.relationReads()
	require.Equal(t, 0, gql)
	r.advance(r.svc.cfg.DAG.FullReadInterval() - time.Minute)
	_, _, gql = r.relationReads()
	assert.Equal(t, 0, gql, "within the interval the listing vouches for every read")
	r.advance(2 * time.Minute)
	acts, rest, gql := r.relationReads()
	assert.Equal(t, []int{0, 1}, []int{rest, gql}, "past it, every kept read is read again in one query")
	assert.Equal(t, "blocked by #3 (at phase-selection)", acts["issue-4"].Dependencies)
	_, _, gql = r.relationReads()
	assert.Equal(t, 0, gql)
}

// A server whose GraphQL lacks the relationship fields is read over REST,
// one issue at a time, with a log line; the hold is the same.
func TestAServerWithoutRelationFieldsIsReadOverREST(t *testing.T) {
	r := newDAGRig(t)
	var logs bytes.Buffer
	r.poller.Log = slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	r.gh.DisableRelations()
	item := r.issue("Item")
	r.say(item, "alice", "the-loop start")
	acts, rest, gql := r.relationReads()
	assert.Equal(t, "ready", acts["issue-2"].Dependencies)
	assert.Equal(t, 1, gql, "the query that finds the fields missing")
	assert.Positive(t, rest, "then each issue over REST")
	assert.Contains(t, logs.String(), "relations are read one issue at a time over REST: its GraphQL API lacks sub-issues or issue dependencies")
	r.cycles(2) // the loop's own status comment moved the issue
	_, rest, gql = r.relationReads()
	assert.Equal(t, []int{0, 0}, []int{rest, gql}, "an idle cycle reads nothing again over REST either")
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
