package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsAppendOrdered(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.now = func() time.Time { return fixed }

	first := []Event{
		{Name: "walk.started", Data: json.RawMessage(`{"by":"alice"}`)},
		{Name: "node.entered", Node: "design", At: "2026-01-01T00:00:00Z"},
	}
	require.NoError(t, s.AppendEvents(ctx, "r", "i", first))
	assert.Equal(t, fixed.Format(time.RFC3339Nano), first[0].At, "store sets an empty At")
	assert.Equal(t, "2026-01-01T00:00:00Z", first[1].At, "a given At is kept")
	assert.Positive(t, first[0].Seq)
	assert.Greater(t, first[1].Seq, first[0].Seq)

	// Events from Update land in the same log, after the earlier ones.
	require.NoError(t, s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
		return nil, []Event{{Name: "node.exited", Node: "design"}}, nil
	}))
	require.NoError(t, s.AppendEvents(ctx, "r", "other", []Event{{Name: "elsewhere"}}))
	require.NoError(t, s.AppendEvents(ctx, "r", "i", nil), "appending nothing is fine")

	got, err := s.Events(ctx, "r", "i")
	require.NoError(t, err)
	var names []string
	for i, ev := range got {
		names = append(names, ev.Name)
		assert.Equal(t, "r", ev.Repo)
		assert.Equal(t, "i", ev.WorkItem)
		if i > 0 {
			assert.Greater(t, ev.Seq, got[i-1].Seq)
		}
	}
	assert.Equal(t, []string{"walk.started", "node.entered", "node.exited"}, names)
	assert.Equal(t, first[0], got[0])
	assert.JSONEq(t, `{"by":"alice"}`, string(got[0].Data))
	assert.Nil(t, got[1].Data)
	assert.Equal(t, "design", got[2].Node)
}

func TestEventsAreAppendOnly(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.AppendEvents(ctx, "r", "i", []Event{{Name: "a"}, {Name: "b"}}))

	for _, q := range []string{
		`UPDATE events SET name = 'forged'`,
		`DELETE FROM events`,
	} {
		_, err := s.write.ExecContext(ctx, q)
		require.Error(t, err, q)
		assert.Contains(t, err.Error(), "append-only", q)
	}
	got, err := s.Events(ctx, "r", "i")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "a", got[0].Name)
}

func TestEventsValidation(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"no name", Event{}, "Name is empty"},
		{"bad json", Event{Name: "x", Data: json.RawMessage(`{`)}, "Data is not valid JSON"},
		{"repo mismatch", Event{Name: "x", Repo: "q"}, `Repo "q"`},
		{"item mismatch", Event{Name: "x", WorkItem: "j"}, `WorkItem "j"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A bad event anywhere in the batch rejects the whole batch.
			err := s.AppendEvents(ctx, "r", "i", []Event{{Name: "ok"}, tt.ev})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "event 1")
			got, err := s.Events(ctx, "r", "i")
			require.NoError(t, err)
			assert.Empty(t, got)
		})
	}
}

func TestEventsNamedSpanItemsInAppendOrder(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.AppendEvents(ctx, "r1", "a", []Event{{Name: "condition.raised", Data: json.RawMessage(`{"kind":"git"}`)}, {Name: "node.entered"}}))
	require.NoError(t, s.AppendEvents(ctx, "r2", "b", []Event{{Name: "conditional"}, {Name: "condition.cleared", Node: "design"}}))
	require.NoError(t, s.AppendEvents(ctx, "r1", "a", []Event{{Name: "condition.notified"}}))

	got, err := s.EventsNamed(ctx, "condition.")
	require.NoError(t, err)
	var seen []string
	for i, ev := range got {
		seen = append(seen, ev.Repo+"/"+ev.WorkItem+" "+ev.Name)
		if i > 0 {
			assert.Greater(t, ev.Seq, got[i-1].Seq)
		}
	}
	assert.Equal(t, []string{"r1/a condition.raised", "r2/b condition.cleared", "r1/a condition.notified"}, seen,
		"only names with the prefix, from every item, in append order")
	assert.JSONEq(t, `{"kind":"git"}`, string(got[0].Data))
	assert.Equal(t, "design", got[1].Node)

	_, err = s.EventsNamed(ctx, "")
	assert.ErrorContains(t, err, "the name prefix is empty")
}
