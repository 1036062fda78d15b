package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestADeliveryIsRecordedOnce(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 6, 6, 0, 0, 0, time.UTC)
	fresh, err := s.RecordDelivery(ctx, "github", "guid-1", "issue_comment", at)
	require.NoError(t, err)
	assert.True(t, fresh, "a new id is fresh")
	fresh, err = s.RecordDelivery(ctx, "github", "guid-1", "issue_comment", at.Add(time.Minute))
	require.NoError(t, err)
	assert.False(t, fresh, "a redelivery reuses the id and is not")
	fresh, err = s.RecordDelivery(ctx, "jira", "guid-1", "comment_created", at)
	require.NoError(t, err)
	assert.True(t, fresh, "ids are per provider")

	// Past the retention, an id is forgotten.
	fresh, err = s.RecordDelivery(ctx, "github", "guid-1", "issue_comment", at.Add(DeliveryRetention+2*time.Minute))
	require.NoError(t, err)
	assert.True(t, fresh)
}

func TestADeliveryWithoutAnIDIsRefused(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	at := time.Now()
	for _, c := range []struct{ provider, id, want string }{
		{"github", "", "the delivery id"},
		{"", "x", "the provider"},
		{"github", strings.Repeat("x", MaxDeliveryID+1), "more than 200"},
	} {
		_, err := s.RecordDelivery(ctx, c.provider, c.id, "issues", at)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}
