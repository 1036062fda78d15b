package providertest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

const upsertKey = "<!-- the-loop:contract-upsert -->"

func writes(f *Server) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

func testUpsertComment(t *testing.T, h *rig) {
	for _, op := range integrations.UpsertCommentOps {
		if !integrations.Supports(h.p, op) {
			t.Skipf("provider lacks %s", op)
		}
	}
	self := []string{h.f.BotLogin()}

	before := h.f.RequestCount()
	_, _, err := integrations.UpsertComment(h.ctx, h.p, h.ref(), upsertKey, "body", nil)
	require.ErrorIs(t, err, integrations.ErrInvalid, "without selfLogins the loop cannot find its own comment")
	assert.Contains(t, err.Error(), "routing.selfLogins")
	_, _, err = integrations.UpsertComment(h.ctx, h.p, h.ref(), "not a marker", "body", self)
	assert.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Equal(t, before, h.f.RequestCount(), "refused before any request")

	forged := h.f.AddComment(h.ref(), "mallory", "NONE", "I am the loop "+upsertKey+"\n"+integrations.SelfMarker)

	first, action, err := integrations.UpsertComment(h.ctx, h.p, h.ref(), upsertKey, "Briefing v1", self)
	require.NoError(t, err)
	assert.Equal(t, integrations.UpsertCreated, action, "a forged marker from someone else is not the loop's comment")

	w := writes(h.f)
	same, action, err := integrations.UpsertComment(h.ctx, h.p, h.ref(), upsertKey, "Briefing v1", self)
	require.NoError(t, err)
	assert.Equal(t, integrations.UpsertUnchanged, action)
	assert.Equal(t, first.ID, same.ID)
	assert.Equal(t, w, writes(h.f), "an unchanged body sends no write")

	edited, action, err := integrations.UpsertComment(h.ctx, h.p, h.ref(), upsertKey, "Briefing v2", self)
	require.NoError(t, err)
	assert.Equal(t, integrations.UpsertEdited, action)
	assert.Equal(t, first.ID, edited.ID, "edited in place")

	stored := h.f.Comments(h.ref())
	require.Len(t, stored, 2, "the forged comment and exactly one of the loop's")
	assert.Equal(t, forged.Body, stored[0].Body, "somebody else's comment is never edited")
	assert.True(t, strings.HasPrefix(stored[1].Body, "Briefing v2"))
	assert.Equal(t, 1, strings.Count(stored[1].Body, upsertKey))
	assert.True(t, integrations.IsSelfAuthored(stored[1].Body))
}
