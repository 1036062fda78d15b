package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

// A batch caller sizes its processors to the work: check tells it how many
// items it is about to evaluate, once, before the first report.
func TestCheckTellsTheCallerHowManyItemsItWillEvaluate(t *testing.T) {
	repo, err := filepath.Abs("../testdata/repo")
	require.NoError(t, err)
	entries, err := os.ReadDir(filepath.Join(repo, "docs", "specs"))
	require.NoError(t, err)
	folders := 0
	for _, e := range entries {
		if e.IsDir() {
			folders++
		}
	}
	require.Greater(t, folders, 1, "the fixture has several items")

	cases := []struct {
		name string
		req  CheckRequest
		want []int
	}{
		{"every item", CheckRequest{Repo: repo, All: true, Recompute: true}, []int{folders}},
		{"one item", CheckRequest{Repo: repo, WorkItem: "issue-1", Recompute: true}, []int{1}},
		{"nothing evaluated: an unknown item", CheckRequest{Repo: repo, WorkItem: "no-such-item", Recompute: true}, nil},
		{"nothing evaluated: a bad request", CheckRequest{Repo: repo}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc := testService(t, nil, Deps{})
			var told []int
			reportsBefore := -1
			emitted := 0
			req := tc.req
			req.BeforeEvaluating = func(items int) {
				told = append(told, items)
				reportsBefore = emitted
			}
			req.Emit = func(runtime.Report, *runtime.Graph, []byte) error { emitted++; return nil }
			_, _ = svc.Check(context.Background(), req)
			assert.Equal(t, tc.want, told)
			if tc.want != nil {
				assert.Equal(t, 0, reportsBefore, "told before the first report")
				assert.Equal(t, tc.want[0], emitted)
			}
		})
	}
}
