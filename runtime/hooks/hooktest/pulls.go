package hooktest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// Pull is a pull request the Fake serves: its head commit, state, checks,
// review threads and changed files. The conversation is the Fake's one
// thread.
type Pull struct {
	HeadSHA string
	State   string // open (default) or closed
	Merged  bool
	Checks  []integrations.Check
	Threads []integrations.ReviewThread
	Files   []string
	ReadErr error
}

// ReadyPull is a pull request ready to ship at head: one green check, no
// thread, changing no capability doc.
func ReadyPull(head string) *Pull {
	return &Pull{HeadSHA: head, Checks: []integrations.Check{{Name: "build", Source: integrations.SourceCheckRun, State: integrations.CheckPassed, Detail: "success", URL: "https://ci.test/1"}}}
}

func pullKey(owner, repo string, n int) string { return fmt.Sprintf("%s/%s#%d", owner, repo, n) }

// AddPull serves pull request owner/repo#n.
func (f *Fake) AddPull(owner, repo string, n int, p *Pull) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Pulls == nil {
		f.Pulls = map[string]*Pull{}
	}
	f.Pulls[pullKey(owner, repo, n)] = p
}

func (f *Fake) pull(owner, repo string, n int) (*Pull, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.Pulls[pullKey(owner, repo, n)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", pullKey(owner, repo, n), integrations.ErrNotFound)
	}
	return p, p.ReadErr
}

// GetPullRequest implements integrations.Provider.
func (f *Fake) GetPullRequest(_ context.Context, owner, repo string, n int) (integrations.PullRequest, error) {
	f.record("get-pull-request")
	p, err := f.pull(owner, repo, n)
	if err != nil {
		return integrations.PullRequest{}, err
	}
	state := p.State
	if state == "" {
		state = "open"
	}
	return integrations.PullRequest{Number: n, Owner: owner, Repo: repo, HeadSHA: p.HeadSHA, State: state, Merged: p.Merged,
		URL: fmt.Sprintf("https://github.test/%s/%s/pull/%d", owner, repo, n)}, nil
}

// ReadChecks implements integrations.CheckReader.
func (f *Fake) ReadChecks(_ context.Context, owner, repo, sha string) (integrations.Checks, error) {
	f.record("read-checks")
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, p := range f.Pulls {
		if strings.HasPrefix(key, owner+"/"+repo+"#") && p.HeadSHA == sha {
			return integrations.SummarizeChecks(sha, p.Checks), nil
		}
	}
	return integrations.SummarizeChecks(sha, nil), nil
}

// FailingPull is a pull request at head whose check build failed, with
// an annotation and a log to read.
func FailingPull(head string) *Pull {
	return &Pull{HeadSHA: head, Checks: []integrations.Check{{Name: "build", Source: integrations.SourceCheckRun, State: integrations.CheckFailed,
		Detail: "failure", URL: "https://ci.test/2", ID: 2, App: "github-actions", Title: "1 test failed", Annotations: 1}}}
}

// ReadCheckDetails implements integrations.CheckDetailReader: one
// annotation and a short log per check run.
func (f *Fake) ReadCheckDetails(_ context.Context, _, _ string, c integrations.Check) (integrations.CheckDetail, error) {
	f.record("read-check-details")
	d := integrations.CheckDetail{Check: c}
	if c.Source == integrations.SourceCheckRun {
		d.Annotations = []integrations.Annotation{{Path: "a.go", StartLine: 3, EndLine: 3, Level: "failure", Message: "expected 3, got 2"}}
		d.Log, d.LogLines = "--- FAIL: TestA\n##[error]Process completed with exit code 1.", 2
	}
	return d, nil
}

// ListReviewThreads implements integrations.ReviewThreadLister.
func (f *Fake) ListReviewThreads(_ context.Context, owner, repo string, n int) ([]integrations.ReviewThread, error) {
	f.record("list-review-threads")
	p, err := f.pull(owner, repo, n)
	if err != nil {
		return nil, err
	}
	return slices.Clone(p.Threads), nil
}

// ListPullRequestFiles implements integrations.PullRequestFileLister.
func (f *Fake) ListPullRequestFiles(_ context.Context, owner, repo string, n int) ([]string, error) {
	f.record("list-pull-request-files")
	p, err := f.pull(owner, repo, n)
	if err != nil {
		return nil, err
	}
	return slices.Clone(p.Files), nil
}

// EditComment implements integrations.Provider.
func (f *Fake) EditComment(_ context.Context, _ integrations.Ref, id int64, body string) (integrations.Comment, error) {
	f.record("edit-comment")
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.Thread {
		if f.Thread[i].ID == id {
			f.Thread[i].Body = body
			f.Edits++
			return f.Thread[i], nil
		}
	}
	return integrations.Comment{}, fmt.Errorf("comment %d: %w", id, integrations.ErrNotFound)
}
