package shipready_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/shipready"
)

var (
	head = strings.Repeat("a", 40)
	old  = strings.Repeat("b", 40)
)

const docsRecord = "# Documentation\n\n## Capability docs\n\nnone affected\n\n## Documentation\n\nREADME updated.\n"

// ready is a snapshot that passes; each case changes one thing.
func ready() shipready.Snapshot {
	return shipready.Snapshot{
		PullRequest: integrations.PullRequest{Number: 12, State: "open", HeadSHA: head, URL: "https://github.com/o/r/pull/12"},
		Checks: integrations.SummarizeChecks(head, []integrations.Check{
			{Name: "build", Source: integrations.SourceCheckRun, State: integrations.CheckPassed, URL: "https://ci/build"},
		}),
		ThreadsRead: true,
		Threads:     []integrations.ReviewThread{{ID: "T1", Resolved: true, Path: "a.go", Line: 3}},
		Briefing:    shipready.Briefing{Posted: true, HeadSHA: head, URL: "https://github.com/o/r/pull/12#issuecomment-1"},
		Docs:        shipready.DocsEvidence{FilesRead: true, ChangedFiles: []string{"a.go"}, RecordFound: true, Record: docsRecord},
	}
}

func TestEvaluate(t *testing.T) {
	check := func(name string, state integrations.CheckState, url string) integrations.Check {
		return integrations.Check{Name: name, Source: integrations.SourceCheckRun, State: state, URL: url}
	}
	tests := []struct {
		name     string
		change   func(s *shipready.Snapshot)
		verdict  shipready.Verdict
		messages []string
	}{
		{name: "everything in place passes", change: func(*shipready.Snapshot) {}, verdict: shipready.Pass},
		{name: "a failing check blocks naming it and its URL", verdict: shipready.Block,
			change: func(s *shipready.Snapshot) {
				s.Checks = integrations.SummarizeChecks(head, []integrations.Check{check("build", integrations.CheckPassed, "u"), check("lint", integrations.CheckFailed, "https://ci/lint/7")})
			},
			messages: []string{"check lint failed on aaaaaaa: https://ci/lint/7"}},
		{name: "a pending check waits naming it", verdict: shipready.Wait,
			change: func(s *shipready.Snapshot) {
				s.Checks = integrations.SummarizeChecks(head, []integrations.Check{check("test", integrations.CheckPending, "https://ci/test/8")})
			},
			messages: []string{"waiting for check test on aaaaaaa: https://ci/test/8"}},
		{name: "failing and pending: blocks, naming both", verdict: shipready.Block,
			change: func(s *shipready.Snapshot) {
				s.Checks = integrations.SummarizeChecks(head, []integrations.Check{check("a", integrations.CheckPending, ""), check("b", integrations.CheckFailed, "")})
			},
			messages: []string{"check b failed on aaaaaaa: (no URL given)", "waiting for check a on aaaaaaa: (no URL given)"}},
		{name: "no check yet waits", verdict: shipready.Wait,
			change:   func(s *shipready.Snapshot) { s.Checks = integrations.SummarizeChecks(head, nil) },
			messages: []string{"no check has reported on aaaaaaa yet; waiting for CI"}},
		{name: "checks read for an older head wait", verdict: shipready.Wait,
			change: func(s *shipready.Snapshot) {
				s.Checks = integrations.SummarizeChecks(old, []integrations.Check{check("build", integrations.CheckPassed, "u")})
			},
			messages: []string{"checks were read for bbbbbbb, not for the head aaaaaaa of pull request #12; waiting for a fresh read"}},
		{name: "an unresolved thread waits naming it", verdict: shipready.Wait,
			change: func(s *shipready.Snapshot) {
				s.Threads = append(s.Threads,
					integrations.ReviewThread{ID: "T2", Path: "service/poll.go", Line: 42, URL: "https://github.com/o/r/pull/12#discussion_r9"},
					integrations.ReviewThread{ID: "T3", Path: "README.md", Outdated: true, URL: "https://github.com/o/r/pull/12#discussion_r10"})
			},
			messages: []string{
				"unresolved review thread on service/poll.go:42: https://github.com/o/r/pull/12#discussion_r9",
				"unresolved review thread on README.md (outdated): https://github.com/o/r/pull/12#discussion_r10",
			}},
		{name: "threads not read wait", verdict: shipready.Wait,
			change:   func(s *shipready.Snapshot) { s.ThreadsRead = false },
			messages: []string{"review threads have not been read yet"}},
		{name: "no briefing waits", verdict: shipready.Wait,
			change:   func(s *shipready.Snapshot) { s.Briefing = shipready.Briefing{} },
			messages: []string{"reviewer briefing not yet posted on pull request #12"}},
		{name: "a briefing of an older head waits", verdict: shipready.Wait,
			change:   func(s *shipready.Snapshot) { s.Briefing.HeadSHA = old },
			messages: []string{"reviewer briefing on pull request #12 describes bbbbbbb, not the head aaaaaaa; it is updated in place"}},
		{name: "a closed, unmerged pull request blocks", verdict: shipready.Block,
			change:   func(s *shipready.Snapshot) { s.PullRequest.State = "closed" },
			messages: []string{"pull request #12 is closed without merging; reopen it or open a new one"}},
		{name: "an unknown head waits", verdict: shipready.Wait,
			change:   func(s *shipready.Snapshot) { s.PullRequest.HeadSHA = "" },
			messages: []string{"the head commit of pull request #12 is unknown, so nothing about it can be checked yet"}},
		{name: "a missing documentation record blocks", verdict: shipready.Block,
			change: func(s *shipready.Snapshot) { s.Docs.RecordFound = false },
			messages: []string{"evidence/documentation.md is missing: name the capability docs this change updates under `## Capability docs` " +
				"(or record \"none affected\") and the documentation changes under `## Documentation`"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ready()
			tc.change(&s)
			got := shipready.Evaluate(s)
			assert.Equal(t, tc.verdict, got.Verdict)
			assert.Equal(t, tc.messages, got.Messages())
		})
	}
}

func TestEvaluateZeroSnapshotNeverPasses(t *testing.T) {
	got := shipready.Evaluate(shipready.Snapshot{})
	assert.NotEqual(t, shipready.Pass, got.Verdict, "what was not read fails closed")
	assert.NotEmpty(t, got.Messages())
}

func TestEvaluateListsEveryItem(t *testing.T) {
	got := shipready.Evaluate(ready())
	var names []string
	for _, it := range got.Items {
		names = append(names, it.Name)
		assert.Equal(t, shipready.Pass, it.Verdict, it.Name)
		assert.NotEmpty(t, it.Messages, it.Name)
	}
	assert.Equal(t, []string{shipready.ItemPullRequest, shipready.ItemChecks, shipready.ItemThreads, shipready.ItemBriefing, shipready.ItemDocs}, names)
	assert.Equal(t, []string{"checks green on aaaaaaa (1)"}, got.Items[1].Messages)
}
