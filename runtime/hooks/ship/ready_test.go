package ship

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const (
	head  = "0123456789abcdef0123456789abcdef01234567"
	older = "9999999999999999999999999999999999999999"
	other = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

const briefing = "## Summary\n\nThe poller reads pull requests.\n\n## Where to focus\n\nservice/poll_pulls.go.\n\n" +
	"## What changed\n\n```mermaid\nflowchart LR\n  poller --> github\n```\n\n## Decisions and why\n\nOne listing per repository.\n\n" +
	"## How it was verified\n\ngo test ./service\n"

const docs = "# Documentation\n\n## Capability docs\n\nnone affected.\n\n## Documentation\n\nREADME.\n"

// outer is an outer-loop context with pull request o/r#7 linked, served
// ready to ship, its briefing posted for head, and the documentation
// record written.
func outer(t *testing.T, params map[string]any) (*runtime.HookContext, *hooktest.Fake, *hooktest.Pull) {
	t.Helper()
	hc, fake := hooktest.GateContext(t, &runtime.Node{ID: "reviewer-briefing"}, params)
	hc.CodeHost = fake
	hc.Graph = &runtime.Graph{Name: "pdlc-work-item-loop"}
	hc.State.PullRequests = []*runtime.PullRequestLink{{Repo: "o/r", Number: 7, State: runtime.PullOpen}}
	pull := hooktest.ReadyPull(head)
	fake.AddPull("o", "r", 7, pull)
	hooktest.WriteArtifact(t, hc, BriefingFile, briefing)
	hooktest.WriteArtifact(t, hc, "evidence/documentation.md", docs)
	_, err := UpsertBriefing(hc.Context, fake, integrations.Ref{System: "github", Owner: "o", Repo: "r", Number: 7}, briefing, hc.Config.Routing.SelfLogins)
	require.NoError(t, err)
	return hc, fake, pull
}

func run(t *testing.T, hc *runtime.HookContext) runtime.Result {
	t.Helper()
	r, err := ReadyToShip(hc)
	require.NoError(t, err)
	return r
}

func TestReadyToShipPassesAndRecordsWhatItRead(t *testing.T) {
	hc, _, _ := outer(t, nil)
	r := run(t, hc)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	d, ok := r.Data["readyToShip"].(*runtime.Decision)
	require.True(t, ok)
	assert.Equal(t, []any{"o/r#7@" + head}, d.Data["pullRequests"])
	assert.Equal(t, runtime.KindReadyToShip, d.Kind)
}

func TestReadyToShip(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		change func(hc *runtime.HookContext, f *hooktest.Fake, p *hooktest.Pull)
		status runtime.Status
		want   []string
	}{
		{
			name: "red CI blocks naming the check and its URL",
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				p.Checks = append(p.Checks, integrations.Check{Name: "lint", Source: integrations.SourceCheckRun, State: integrations.CheckFailed, URL: "https://ci.test/lint/7"})
			},
			status: runtime.Block,
			want:   []string{"check lint failed on 0123456: https://ci.test/lint/7"},
		},
		{
			name:   "red CI at an approval gate holds the gate open instead of blocking it",
			params: map[string]any{"atGate": true},
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				p.Checks = []integrations.Check{{Name: "lint", Source: integrations.SourceStatus, State: integrations.CheckFailed, URL: "https://ci.test/lint/7"}}
			},
			status: runtime.Wait,
			want:   []string{"check lint failed on 0123456: https://ci.test/lint/7"},
		},
		{
			name: "a pending check waits",
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				p.Checks = []integrations.Check{{Name: "test", Source: integrations.SourceCheckRun, State: integrations.CheckPending, URL: "https://ci.test/test/8"}}
			},
			status: runtime.Wait,
			want:   []string{"waiting for check test on 0123456: https://ci.test/test/8"},
		},
		{
			name: "an unresolved review thread waits",
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				p.Threads = []integrations.ReviewThread{{Path: "service/poll.go", Line: 42, URL: "https://github.test/o/r/pull/7#discussion_r9"}, {Resolved: true, Path: "a.go"}}
			},
			status: runtime.Wait,
			want:   []string{"unresolved review thread on service/poll.go:42: https://github.test/o/r/pull/7#discussion_r9"},
		},
		{
			name:   "a push makes the posted briefing stale",
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) { p.HeadSHA = older },
			status: runtime.Wait,
			want:   []string{"reviewer briefing on pull request #7 describes 0123456, not the head 9999999; it is updated in place"},
		},
		{
			name: "a briefing typed by anyone else, markers included, is not the loop's",
			change: func(hc *runtime.HookContext, f *hooktest.Fake, _ *hooktest.Pull) {
				for i := range f.Thread {
					f.Thread[i].Author = "mallory"
				}
			},
			status: runtime.Wait,
			want:   []string{"reviewer briefing not yet posted on pull request #7"},
		},
		{
			name: "a changed capability doc the record does not name blocks",
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				p.Files = []string{"docs/capabilities/polling.md"}
			},
			status: runtime.Block,
			want:   []string{"pull request #7 changes docs/capabilities/polling.md, which `## Capability docs` in docs/specs/issue-1/evidence/documentation.md does not name"},
		},
		{
			name:   "no linked pull request waits and says how to open one",
			change: func(hc *runtime.HookContext, _ *hooktest.Fake, _ *hooktest.Pull) { hc.State.PullRequests = nil },
			status: runtime.Wait,
			want:   []string{"no pull request is linked to issue-1 yet: open one with `the-loop pr create --work-item issue-1`"},
		},
		{
			name: "a pull request GitHub cannot serve waits",
			change: func(_ *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				p.ReadErr = errors.New("502 bad gateway")
			},
			status: runtime.Wait,
			want:   []string{"could not read o/r#7 from GitHub (502 bad gateway); ready to ship stays unmet until it can be read"},
		},
		{
			name: "a closed pull request is not read; the others are, each named",
			change: func(hc *runtime.HookContext, f *hooktest.Fake, _ *hooktest.Pull) {
				hc.State.PullRequests = append(hc.State.PullRequests,
					&runtime.PullRequestLink{Repo: "o/infra", Number: 2, State: runtime.PullOpen},
					&runtime.PullRequestLink{Repo: "o/old", Number: 1, State: runtime.PullClosed})
				f.AddPull("o", "infra", 2, &hooktest.Pull{HeadSHA: other})
			},
			status: runtime.Wait,
			want: []string{"o/infra#2: no check has reported on aaaaaaa yet; waiting for CI",
				"o/infra#2: reviewer briefing on pull request #2 describes 0123456, not the head aaaaaaa; it is updated in place"},
		},
		{
			name:   "a change request at the gate is not held",
			params: map[string]any{"atGate": true},
			change: func(hc *runtime.HookContext, _ *hooktest.Fake, p *hooktest.Pull) {
				hc.Results = []runtime.Result{{Status: runtime.Pass, Data: map[string]any{"outcome": runtime.OutcomeChangesRequested}}}
				p.Checks = nil
			},
			status: runtime.Skip,
			want:   []string{"the gate's answer is not an approval: nothing ships"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, fake, pull := outer(t, tt.params)
			tt.change(hc, fake, pull)
			r := run(t, hc)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.Equal(t, tt.want, hooktest.Texts(r))
			assert.Nil(t, r.Data["readyToShip"], "only a pass is recorded")
		})
	}
}

// An inner loop answers for its own pull request: its ticket.
func TestReadyToShipInAPullRequestLoopReadsItsOwnPullRequest(t *testing.T) {
	hc, fake, _ := outer(t, nil)
	hc.Graph = &runtime.Graph{Name: "pdlc-pr-loop"}
	hc.TicketRef = integrations.Ref{System: "github", Owner: "o", Repo: "r", Number: 9}
	fake.AddPull("o", "r", 9, &hooktest.Pull{HeadSHA: other})
	r := run(t, hc)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Equal(t, []string{"no check has reported on aaaaaaa yet; waiting for CI",
		"reviewer briefing on pull request #9 describes 0123456, not the head aaaaaaa; it is updated in place"}, hooktest.Texts(r))
}

// Check reads no network: only a signed record of an earlier pass on the
// node satisfies it; without one it is not satisfied, and says why.
func TestReadyToShipUnderCheckReadsOnlyTheRecord(t *testing.T) {
	hc, fake, _ := outer(t, nil)
	hooktest.CheckOnly(hc)
	fake.Calls = nil
	r := run(t, hc)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Contains(t, hooktest.Texts(r)[0], "ready to ship is not verified: check reads no network")
	assert.Empty(t, fake.Calls, "check reads nothing from GitHub")

	hc.State.ReadyToShip = map[string]*runtime.Decision{"reviewer-briefing": {Node: "reviewer-briefing", Kind: runtime.KindReadyToShip, At: "2030-01-01T00:00:00Z",
		Data: map[string]any{"pullRequests": []any{"o/r#7@" + head}}}}
	r = run(t, hc)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, []string{"ready to ship as read from GitHub at 2030-01-01T00:00:00Z: o/r#7 at 0123456 (check reads no network; the loop reads GitHub again on every push)"}, hooktest.Texts(r))
}

func TestPostBriefingKeepsOneCommentPerPullRequest(t *testing.T) {
	hc, fake, pull := outer(t, nil)
	count := func() int {
		n := 0
		for _, c := range fake.Thread {
			if strings.Contains(c.Body, "<!-- the-loop:pr-briefing -->") {
				n++
			}
		}
		return n
	}
	r, err := PostBriefing(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, []string{"o/r#7 (unchanged)"}, r.Data["posted"])
	assert.Equal(t, 1, count())

	pull.HeadSHA = older
	r, err = PostBriefing(hc)
	require.NoError(t, err)
	assert.Equal(t, []string{"o/r#7 (edited)"}, r.Data["posted"])
	assert.Equal(t, 1, count(), "a push edits the briefing in place")
	assert.Equal(t, 1, fake.Edits)
	assert.Contains(t, fake.Thread[len(fake.Thread)-1].Body, "<!-- the-loop:pr-briefing-head "+older+" -->")
}

func TestPostBriefingBlocksOnWhatTheWriterMustFix(t *testing.T) {
	tests := []struct {
		name, text string
		want       string
	}{
		{"missing", "", "pr-briefing.md is missing: write the reviewer briefing from the PR-briefing template"},
		{"a section left empty", strings.Replace(briefing, "One listing per repository.", "", 1), "reviewer briefing: fill `## Decisions and why` from the PR-briefing template"},
		{"no diagram", strings.Replace(briefing, "```mermaid\nflowchart LR\n  poller --> github\n```", "A new step.", 1), "reviewer briefing: add a mermaid diagram"},
	}
	for _, tt := range tests {
		for _, readOnly := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				hc, fake, _ := outer(t, nil)
				before := len(fake.Thread)
				if tt.text == "" {
					require.NoError(t, removeArtifact(hc, BriefingFile))
				} else {
					hooktest.WriteArtifact(t, hc, BriefingFile, tt.text)
				}
				if readOnly {
					hooktest.CheckOnly(hc)
				}
				r, err := PostBriefing(hc)
				require.NoError(t, err)
				assert.Equal(t, runtime.Block, r.Status)
				assert.Contains(t, hooktest.Texts(r)[0], tt.want)
				assert.Len(t, fake.Thread, before, "nothing is posted")
			})
		}
	}
}

func removeArtifact(hc *runtime.HookContext, name string) error {
	return os.Remove(filepath.Join(hc.WorkItem.SpecDir, name))
}
