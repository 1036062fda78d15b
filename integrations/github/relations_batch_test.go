package github_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
)

// TestBatchedReadEqualsReadingEachIssue builds relation shapes on the fake
// GitHub and reads every ticket twice, with fresh providers: one by one over
// REST, and all at once through ReadRelationsBatch. The answers must be the
// same, ticket by ticket, and the batch must cost one GraphQL query per
// hundred tickets (plus REST only where a connection runs past its first
// page or GraphQL cannot resolve a ticket).
func TestBatchedReadEqualsReadingEachIssue(t *testing.T) {
	tests := []struct {
		name string
		// build shapes the fake and returns the refs to read.
		build func(f *providertest.Server) []integrations.Ref
		// rest is how many REST requests the batch may send besides its query.
		rest     int
		fallback bool
		// before runs just before the batched read.
		before func(f *providertest.Server)
	}{
		{name: "a parent, its children across repositories, done, dropped and duplicate", build: func(f *providertest.Server) []integrations.Ref {
			parent := f.Ticket()
			a := f.SeedIssue("Done", nil, true)
			b := f.SeedIssueIn("octo/gadgets", "Elsewhere")
			c := f.SeedIssue("Dropped", nil, true)
			d := f.SeedIssue("Duplicate", nil, true)
			for _, child := range []integrations.Ref{a, b, c, d} {
				f.AddSubIssue(parent, child)
			}
			f.SetState(a, false, "completed")
			f.SetState(c, false, "not_planned")
			f.SetState(d, false, "duplicate")
			return []integrations.Ref{parent, a, b, c, d}
		}},
		{name: "blockers across repositories, blocking, a closed item without a reason", build: func(f *providertest.Server) []integrations.Ref {
			item := f.Ticket()
			other := f.SeedIssueIn("octo/gadgets", "Other repo")
			old := f.SeedIssue("Closed long ago", nil, true)
			next := f.SeedIssue("Waits", nil, true)
			f.AddBlocker(item, other)
			f.AddBlocker(item, old)
			f.AddBlocker(next, item)
			f.SetState(old, false, "")
			return []integrations.Ref{item, other, old, next}
		}},
		{name: "a sub-issue whose parent is in another repository", build: func(f *providertest.Server) []integrations.Ref {
			parent := f.SeedIssueIn("octo/gadgets", "Epic")
			child := f.Ticket()
			f.AddSubIssue(parent, child)
			return []integrations.Ref{child, parent}
		}},
		{name: "more than a page of sub-issues is read whole over REST", rest: 2, build: func(f *providertest.Server) []integrations.Ref {
			parent := f.Ticket()
			for i := range 130 {
				f.AddSubIssue(parent, f.SeedIssue(fmt.Sprintf("Child %d", i), nil, true))
			}
			return []integrations.Ref{parent}
		}},
		{name: "a missing ticket and a missing repository", rest: 2, build: func(f *providertest.Server) []integrations.Ref {
			return []integrations.Ref{f.Ticket(), f.Missing(), {System: "github", Owner: "octo", Repo: "nowhere", Number: 1}}
		}},
		{name: "a server whose GraphQL lacks the fields reads each issue over REST", rest: 6, fallback: true, build: func(f *providertest.Server) []integrations.Ref {
			f.DisableRelations()
			child := f.SeedIssue("Child", nil, true)
			f.AddSubIssue(f.Ticket(), child)
			return []integrations.Ref{f.Ticket(), child}
		}},
		{name: "a server whose GraphQL endpoint answers 404 reads each issue over REST", rest: 9, fallback: true,
			before: func(f *providertest.Server) { f.FailNext(1, 404) },
			build: func(f *providertest.Server) []integrations.Ref {
				child := f.SeedIssue("Child", nil, true)
				f.AddSubIssue(f.Ticket(), child)
				return []integrations.Ref{f.Ticket(), child}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := providertest.NewGitHub(t)
			refs := tt.build(f)
			ctx := context.Background()
			one := newFromFake(t, f, providertest.Env{Token: f.Token()})
			var want []integrations.RelationsRead
			for _, ref := range refs {
				rel, err := one.ReadRelations(ctx, ref)
				want = append(want, integrations.RelationsRead{Relations: rel, Err: err})
			}
			if tt.before != nil {
				tt.before(f)
			}
			restBefore, gqlBefore := f.RelationReads()
			got := newFromFake(t, f, providertest.Env{Token: f.Token()}).ReadRelationsBatch(ctx, refs)
			require.Len(t, got.Reads, len(refs))
			for i := range refs {
				assert.Equal(t, want[i].Relations, got.Reads[i].Relations, "%s", refs[i])
				if want[i].Err != nil {
					require.Error(t, got.Reads[i].Err, "%s", refs[i])
					assert.Equal(t, want[i].Err.Error(), got.Reads[i].Err.Error(), "%s", refs[i])
				} else {
					assert.NoError(t, got.Reads[i].Err, "%s", refs[i])
				}
			}
			assertReads(t, f, tt.rest+restBefore, 1+gqlBefore, "one query for the whole batch, and REST only where said")
			if tt.fallback {
				assert.Regexp(t, "lacks sub-issues or issue dependencies|GraphQL endpoint answered HTTP 404", got.Fallback)
			} else {
				assert.Empty(t, got.Fallback)
			}
		})
	}
}

// TestBatchedReadPagesByHundred: 250 tickets take three queries.
func TestBatchedReadPagesByHundred(t *testing.T) {
	f := providertest.NewGitHub(t)
	refs := []integrations.Ref{f.Ticket()}
	for i := range 249 {
		refs = append(refs, f.SeedIssue(fmt.Sprintf("Item %d", i), nil, true))
	}
	got := newFromFake(t, f, providertest.Env{Token: f.Token()}).ReadRelationsBatch(context.Background(), refs)
	for i, r := range got.Reads {
		require.NoError(t, r.Err)
		assert.Equal(t, refs[i].Number, r.Relations.Item.Ref.Number)
	}
	assertReads(t, f, 0, 3, "three queries, no REST")
}

// assertReads waits for the fake's request log to show rest REST relation
// reads and gql GraphQL queries: the fake logs a request once its handler
// returned, which may be after the client read the answer.
func assertReads(t *testing.T, f *providertest.Server, rest, gql int, msg string) {
	t.Helper()
	var got []int
	assert.Eventually(t, func() bool {
		r, g := f.RelationReads()
		got = []int{r, g}
		return r == rest && g == gql
	}, 2*time.Second, 5*time.Millisecond, "%s: want REST %d, GraphQL %d; last seen %v", msg, rest, gql, got)
}

// TestBatchedReadFailsWholeOnAnUnreadableAnswer: a rate limit beyond the
// wait cap fails every ticket of the batch; nothing is read as none.
func TestBatchedReadFailsWholeOnAnUnreadableAnswer(t *testing.T) {
	f := providertest.NewGitHub(t)
	other := f.SeedIssue("Other", nil, true)
	f.GraphQLRateLimitedNext(2 * 60 * 60 * 1e9)
	got := newFromFake(t, f, providertest.Env{Token: f.Token()}).ReadRelationsBatch(context.Background(), []integrations.Ref{f.Ticket(), other})
	for _, r := range got.Reads {
		assert.ErrorIs(t, r.Err, integrations.ErrRateLimited)
		assert.Empty(t, r.Relations.Item.Title)
	}
}

// TestBatchedReadFailsWholeOnAMalformedAnswer: half an answer is no answer
// for any ticket of the batch.
func TestBatchedReadFailsWholeOnAMalformedAnswer(t *testing.T) {
	f := providertest.NewGitHub(t)
	other := f.SeedIssue("Other", nil, true)
	f.MalformNext(1)
	got := newFromFake(t, f, providertest.Env{Token: f.Token()}).ReadRelationsBatch(context.Background(), []integrations.Ref{f.Ticket(), other})
	for _, r := range got.Reads {
		assert.ErrorIs(t, r.Err, integrations.ErrMalformed)
	}
}
