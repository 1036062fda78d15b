package service

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/filestamp"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// memoRig is a private copy of the fixture repository and a store file,
// with the service under test and a way to compute the same check afresh.
type memoRig struct {
	src, repo, db string
	svc           *Service
}

func newMemoRig(t *testing.T) *memoRig {
	t.Helper()
	if !filestamp.Supported {
		t.Skip("the check memo needs change times, read on Linux only")
	}
	src, err := filepath.Abs("../testdata/repo")
	require.NoError(t, err)
	r := &memoRig{src: src, repo: filepath.Join(t.TempDir(), "repo"), db: filepath.Join(t.TempDir(), "state.db")}
	require.NoError(t, os.CopyFS(r.repo, os.DirFS(src)))
	r.svc = testService(t, nil, Deps{Store: store.NewHandle(r.db)})
	_, err = r.svc.Start(context.Background(), StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}})
	require.NoError(t, err, "the store exists, as in a server that has acted")
	return r
}

// restore puts the repository back as the fixture has it.
func (r *memoRig) restore(t *testing.T) {
	t.Helper()
	require.NoError(t, os.RemoveAll(r.repo))
	require.NoError(t, os.CopyFS(r.repo, os.DirFS(r.src)))
}

// outcome is everything a caller of Check sees, comparable. A result
// with its reports' encodings must hold json.Marshal's bytes of each.
func outcome(t *testing.T, res CheckResult, err error) string {
	t.Helper()
	if res.Encoded != nil {
		require.Len(t, res.Encoded, len(res.Reports))
		for i, rep := range res.Reports {
			want, jerr := json.Marshal(rep)
			require.NoError(t, jerr)
			require.Equal(t, string(want), string(res.Encoded[i]), "the encoding of %s is its report's", rep.WorkItem)
		}
	}
	b, jerr := json.Marshal(struct {
		Reports  any
		Warnings []string
		Err      string
	}{res.Reports, res.Warnings, errString(err)})
	require.NoError(t, jerr)
	return string(b)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// fresh checks req with a new service over the same store: no memo.
func (r *memoRig) fresh(t *testing.T, req CheckRequest) string {
	t.Helper()
	svc := testService(t, nil, Deps{Store: store.NewHandle(r.db)})
	svc.memo.off = true
	res, err := svc.Check(context.Background(), req)
	return outcome(t, res, err)
}

// memoRequests ask about issue-2 without and then with the report's
// encoding (Encode), so an entry either kept answers the other: the
// encoding is made for an entry kept without one, and kept.
var memoRequests = []CheckRequest{
	{WorkItem: "issue-2"}, {WorkItem: "issue-3"}, {WorkItem: "issue-4"},
	{WorkItem: "issue-3", Recompute: true}, {WorkItem: "issue-4", Recompute: true},
	{WorkItem: "issue-2", Encode: true},
}

// Whatever changes in the repository or the store, a repeated check says
// what a fresh one says: every file of the fixture is edited, emptied and
// removed in turn, and the store written by another handle.
func TestAMemoizedCheckAlwaysSaysWhatAFreshOneSays(t *testing.T) {
	r := newMemoRig(t)
	defer func(d time.Duration) { memoSettle = d }(memoSettle)
	memoSettle = -time.Hour // every stamp counts as settled: the edits below change sizes or inodes
	ctx := context.Background()

	var files []string
	require.NoError(t, filepath.WalkDir(r.src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(r.src, p)
			files = append(files, rel)
		}
		return err
	}))
	require.Greater(t, len(files), 20)
	edits := map[string]func(p string) error{
		"appended to": func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString("\n- [x] appended\n")
			return errors.Join(err, f.Close())
		},
		"emptied": func(p string) error { return os.Truncate(p, 0) },
		"removed": os.Remove,
	}
	type change struct {
		name  string
		apply func() error
	}
	var changes []change
	for _, f := range files {
		for name, edit := range edits {
			p := filepath.Join(r.repo, f)
			changes = append(changes, change{f + " " + name, func() error { return edit(p) }})
		}
	}
	changes = append(changes, change{"the store written by another process's handle", func() error {
		other := testService(t, nil, Deps{Store: store.NewHandle(r.db)})
		_, err := other.Start(ctx, StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-2"}})
		return err
	}})

	recomputed := 0
	for _, c := range changes {
		for i := range memoRequests {
			req := memoRequests[i]
			req.Repo = r.repo
			first, err := r.svc.Check(ctx, req)
			require.NoError(t, err, c.name)
			hits := r.svc.memo.hits.Load()
			again, err := r.svc.Check(ctx, req)
			require.Equal(t, hits+1, r.svc.memo.hits.Load(), "%s: an unchanged item is answered from the memo", req.WorkItem)
			require.Equal(t, outcome(t, first, nil), outcome(t, again, err))
		}
		require.NoError(t, c.apply(), c.name)
		for i := range memoRequests {
			req := memoRequests[i]
			req.Repo = r.repo
			hits := r.svc.memo.hits.Load()
			got, err := r.svc.Check(ctx, req)
			if r.svc.memo.hits.Load() == hits {
				recomputed++
			}
			assert.Equal(t, r.fresh(t, req), outcome(t, got, err), "after %s, check %s (recompute %v)", c.name, req.WorkItem, req.Recompute)
		}
		r.restore(t)
	}
	assert.Greater(t, recomputed, len(changes), "changes to what a check reads are seen")
}

// A file written less than memoSettle before a check keeps that check out
// of the memo: a second edit within the same tick could go unseen.
func TestACheckOfAJustEditedItemIsNotKept(t *testing.T) {
	r := newMemoRig(t)
	defer func(d time.Duration) { memoSettle = d }(memoSettle)
	memoSettle = 200 * time.Millisecond
	ctx := context.Background()
	req := CheckRequest{Repo: r.repo, WorkItem: "issue-3"}
	require.NoError(t, os.WriteFile(filepath.Join(r.repo, "docs/specs/issue-3/design.md"), []byte("# Design\n"), 0o644))
	for range 2 {
		_, err := r.svc.Check(ctx, req)
		require.NoError(t, err)
	}
	assert.Zero(t, r.svc.memo.hits.Load(), "nothing was kept while the edit was fresh")

	time.Sleep(2 * memoSettle)
	for range 2 {
		_, err := r.svc.Check(ctx, req)
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), r.svc.memo.hits.Load(), "once settled, the repeated check is answered from the memo")
}

// What the memo cannot vouch for is never kept: --trusted-keys-from, a
// link in the item's folder, several items at once.
func TestWhatTheMemoCannotVouchForIsComputedEveryTime(t *testing.T) {
	r := newMemoRig(t)
	defer func(d time.Duration) { memoSettle = d }(memoSettle)
	memoSettle = -time.Hour
	ctx := context.Background()
	require.NoError(t, os.Symlink("design.md", filepath.Join(r.repo, "docs/specs/issue-3/link.md")))
	for _, req := range []CheckRequest{
		{Repo: r.repo, WorkItem: "issue-3"},
		{Repo: r.repo, All: true},
	} {
		for range 2 {
			_, _ = r.svc.Check(ctx, req)
		}
	}
	assert.Zero(t, r.svc.memo.hits.Load())
}

// The memo keeps a report's JSON encoding and serves it however long ago
// the dependency read was: the age it sets must not be part of the JSON.
func TestTheJSONOfAReportDoesNotMoveWithTheClock(t *testing.T) {
	rep := runtime.Report{WorkItem: "issue-1", Dependencies: &runtime.DependencyReport{ReadAt: "2026-01-02T03:04:05Z", Age: "3m"}}
	before, err := json.Marshal(rep)
	require.NoError(t, err)
	rep.Dependencies = &runtime.DependencyReport{ReadAt: "2026-01-02T03:04:05Z", Age: "2d"}
	after, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// A request for the reports' encodings gets json.Marshal's bytes, the
// second time from the memo without encoding again; it cannot also ask to
// render or stream its reports.
func TestACheckReturnsItsReportsEncoding(t *testing.T) {
	r := newMemoRig(t)
	defer func(d time.Duration) { memoSettle = d }(memoSettle)
	memoSettle = -time.Hour
	ctx := context.Background()
	req := CheckRequest{Repo: r.repo, WorkItem: "issue-3", Encode: true}
	first, err := r.svc.Check(ctx, req)
	require.NoError(t, err)
	outcome(t, first, nil)
	require.Len(t, first.Encoded, 1)
	again, err := r.svc.Check(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.svc.memo.hits.Load())
	require.Len(t, again.Encoded, 1)
	assert.Same(t, &first.Encoded[0][0], &again.Encoded[0][0], "the memo's encoding, not a new one")

	plain, err := r.svc.Check(ctx, CheckRequest{Repo: r.repo, WorkItem: "issue-3"})
	require.NoError(t, err)
	assert.Nil(t, plain.Encoded, "no encoding unless asked for")

	for _, bad := range []CheckRequest{
		{Repo: r.repo, WorkItem: "issue-3", Encode: true, Render: func(runtime.Report) ([]byte, error) { return nil, nil }},
		{Repo: r.repo, WorkItem: "issue-3", Encode: true, Emit: func(runtime.Report, *runtime.Graph, []byte) error { return nil }},
	} {
		_, err := r.svc.Check(ctx, bad)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "CheckRequest.Encode")
	}
}

// A repository named through symbolic links is answered from the memo only
// while its links lead where they led: a link pointed at another checkout,
// or a parent folder moved and linked back, is resolved again, and a server
// confined to some repositories refuses a path that now leads out of them,
// whatever it remembers.
func TestAMemoizedCheckFollowsTheRepositorysLinksAsTheyAreNow(t *testing.T) {
	r := newMemoRig(t)
	defer func(d time.Duration) { memoSettle = d }(memoSettle)
	memoSettle = -time.Hour
	ctx := context.Background()
	base := t.TempDir()
	other := filepath.Join(base, "other")
	require.NoError(t, os.CopyFS(other, os.DirFS(r.src)))
	require.NoError(t, os.Remove(filepath.Join(other, "docs/specs/issue-3/design.md")))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(r.repo, link))
	repoint := func(to string) {
		require.NoError(t, os.Remove(link))
		require.NoError(t, os.Symlink(to, link))
	}
	allowed := testService(t, nil, Deps{Store: store.NewHandle(r.db), AllowedRepos: []string{mustReal(t, r.repo)}})
	_, err := allowed.Start(ctx, StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}})
	require.NoError(t, err, "its store is open, as in a server that has acted")

	// Fresh answers, computed before anything is remembered: the fresh
	// service's store reads would change the stamps of what is.
	wantRepo := r.fresh(t, CheckRequest{Repo: r.repo, WorkItem: "issue-3", Encode: true})
	wantOther := r.fresh(t, CheckRequest{Repo: other, WorkItem: "issue-3", Encode: true})
	require.NotEqual(t, wantRepo, wantOther)

	for _, svc := range []*Service{r.svc, allowed} {
		repoint(r.repo)
		req := CheckRequest{Repo: link, WorkItem: "issue-3", Encode: true}
		var got []string
		for range 2 {
			res, err := svc.Check(ctx, req)
			got = append(got, outcome(t, res, err))
		}
		hits := svc.memo.hits.Load()
		require.NotZero(t, hits, "the repeated check was answered from the memo")
		require.Equal(t, []string{wantRepo, wantRepo}, got)

		repoint(other)
		res, err := svc.Check(ctx, req)
		if svc == allowed {
			require.ErrorIs(t, err, ErrInvalidRequest, "the link leads out of the served repositories now")
			assert.Contains(t, err.Error(), "outside the repositories this server serves")
		} else {
			require.Equal(t, wantOther, outcome(t, res, err), "the other checkout's report")
		}
		assert.Equal(t, hits, svc.memo.hits.Load(), "nothing was answered from the memo")
	}

	// The checkout's parent folder moves and a link takes its place: the
	// same files, reached through a link, under another real path.
	req := CheckRequest{Repo: r.repo, WorkItem: "issue-3", Encode: true}
	for range 2 {
		_, err := allowed.Check(ctx, req)
		require.NoError(t, err)
	}
	parent := filepath.Dir(r.repo)
	moved := parent + ".moved"
	require.NoError(t, os.Rename(parent, moved))
	require.NoError(t, os.Symlink(moved, parent))
	t.Cleanup(func() { _ = os.Remove(parent); _ = os.Rename(moved, parent) })
	hits := allowed.memo.hits.Load()
	_, err = allowed.Check(ctx, req)
	require.ErrorIs(t, err, ErrInvalidRequest, "the checkout's real path is no longer the one served")
	assert.Equal(t, hits, allowed.memo.hits.Load())
}
