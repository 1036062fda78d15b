package authz

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
)

func TestAuthorizedComments(t *testing.T) {
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"@Alice", "bob", ""}
	cfg.Routing.SelfLogins = []string{"loop-bot"}
	in := []integrations.Comment{
		{ID: 1, Author: "alice", Body: "lgtm"},
		{ID: 2, Author: "ALICE", Body: "case differs"},
		{ID: 3, Author: "@bob", Body: "at sign"},
		{ID: 4, Author: "mallory", Body: "approved"},
		{ID: 5, Author: "alice", Body: integrations.MarkSelfAuthored("approved")},
		{ID: 6, Author: "loop-bot", Body: "approved"},
		{ID: 7, Author: "", Body: "approved"},
		{ID: 8, Author: "alice2", Body: "prefix is not a match"},
	}
	var ids []int64
	for _, c := range AuthorizedComments(cfg, in) {
		ids = append(ids, c.ID)
	}
	assert.Equal(t, []int64{1, 2, 3}, ids)

	cfg.Routing.SelfLogins = []string{"bob"}
	assert.Len(t, AuthorizedComments(cfg, in), 2, "a self login is never read, even when also authorized")

	assert.Nil(t, AuthorizedComments(nil, in))
}

func TestEmptyAuthorizedListReadsNothing(t *testing.T) {
	cfg := config.Default()
	in := []integrations.Comment{{Author: "alice", Body: "approved"}, {Author: "", Body: "approved"}}
	assert.Empty(t, AuthorizedComments(cfg, in))
	cfg.Routing.AuthorizedUsers = []string{"", "  @ "}
	assert.Empty(t, AuthorizedComments(cfg, in))
}

func TestNormalizeLogin(t *testing.T) {
	assert.Equal(t, "alice", NormalizeLogin(" @@Alice "))
	assert.Equal(t, "", NormalizeLogin("@"))
}

func TestOwnCommentNeedsASelfLogin(t *testing.T) {
	cfg := config.Default()
	marked := integrations.MarkSelfAuthored("x")
	assert.False(t, OwnComment(cfg, integrations.Comment{Author: "anyone", Body: marked}), "without selfLogins a typed marker proves nothing")
	cfg.Routing.SelfLogins = []string{"loop-bot"}
	assert.False(t, OwnComment(cfg, integrations.Comment{Author: "mallory", Body: marked}), "a forged marker from another login is not the loop's")
	assert.True(t, OwnComment(cfg, integrations.Comment{Author: "Loop-Bot", Body: marked}))
	assert.False(t, OwnComment(cfg, integrations.Comment{Author: "loop-bot", Body: "unmarked"}))
}

func TestLoginsFoldASCIIOnly(t *testing.T) {
	assert.Equal(t, "kevin", NormalizeLogin("@Kevin"))
	assert.NotEqual(t, "kevin", NormalizeLogin("\u212Aevin"), "the Kelvin sign is not a k")
}

func TestIsAuthorized(t *testing.T) {
	cfg := config.Default()
	assert.False(t, IsAuthorized(cfg, "alice"), "an empty list authorizes nobody")
	cfg.Routing.AuthorizedUsers = []string{"@Alice", "loop-bot"}
	cfg.Routing.SelfLogins = []string{"loop-bot"}
	assert.True(t, IsAuthorized(cfg, "alice"))
	assert.False(t, IsAuthorized(cfg, "loop-bot"), "the loop's own account is never a decision-maker")
	assert.False(t, IsAuthorized(cfg, ""))
	assert.False(t, IsAuthorized(nil, "alice"))
}

func TestAtRendersOneLeadingAt(t *testing.T) {
	assert.Equal(t, "@alice", At(" @@alice "))
	assert.Equal(t, "@Bob", At("Bob"))
}

func TestAnEditedCommentIsOneUpdatedAfterItWasCreated(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.False(t, Edited(integrations.Comment{CreatedAt: at, UpdatedAt: at}))
	assert.True(t, Edited(integrations.Comment{CreatedAt: at, UpdatedAt: at.Add(time.Second)}))
	assert.False(t, Edited(integrations.Comment{UpdatedAt: at}), "no creation time: nothing says it changed")
}
