package handoff_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
)

var t0 = time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)

const loopLogin = "the-loop-bot"

func spec(stage string) handofftest.Spec { return handofftest.Spec{Stage: stage} }

func recordComment(t *testing.T, s handofftest.Spec, author string, id int64, at time.Time) (handoff.Record, integrations.Comment) {
	t.Helper()
	rec, _ := handofftest.Build(s)
	cs := handofftest.Comments(t, rec, author, id, at)
	require.Len(t, cs, 1)
	return rec, cs[0]
}

func codes(rs []handoff.Rejection) []handoff.Code {
	out := make([]handoff.Code, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return out
}

func TestFindRecordNewestValidWins(t *testing.T) {
	_, older := recordComment(t, spec(handoff.StageBrainstormSettled), "dev", 1, t0)
	newer, c2 := recordComment(t, spec(handoff.StageRequirementsSettled), "dev", 2, t0.Add(time.Hour))
	chat := handofftest.Comment("dev", "Looks good to me", 3, t0.Add(2*time.Hour))
	found, rej := handoff.FindRecord([]integrations.Comment{older, c2, chat}, handofftest.Authorized("dev"), handofftest.SelfBy(loopLogin))
	require.NotNil(t, found)
	assert.Equal(t, newer, found.Record)
	assert.Equal(t, "dev", found.Author)
	assert.Equal(t, c2.URL, found.CommentURL)
	require.Len(t, rej, 1, "ordinary comments are not records and are not reported")
	assert.Equal(t, handoff.CodeSuperseded, rej[0].Code)
	assert.Equal(t, older.URL, rej[0].CommentURL)
}

func TestFindRecordSkipsInvalidNewerRecord(t *testing.T) {
	good, c1 := recordComment(t, spec(handoff.StageRequirementsSettled), "dev", 1, t0)
	_, c2 := recordComment(t, spec(handoff.StageDesignSettled), "dev", 2, t0.Add(time.Hour))
	c2.Body = strings.Replace(c2.Body, "enter: design-approval", "enter: implementation", 1)
	found, rej := handoff.FindRecord([]integrations.Comment{c1, c2}, handofftest.Authorized("dev"), nil)
	require.NotNil(t, found)
	assert.Equal(t, good, found.Record)
	require.Len(t, rej, 1)
	assert.Equal(t, handoff.CodeEnterNotAllowed, rej[0].Code)
	assert.Equal(t, c2.URL, rej[0].CommentURL)
	assert.Contains(t, rej[0].Reason, "implementation")
}

func TestFindRecordAuthorization(t *testing.T) {
	everyone := func(string) bool { return true }
	cases := []struct {
		name   string
		mutate func(*integrations.Comment)
		auth   func(string) bool
		self   func(integrations.Comment) bool
		honour bool
	}{
		{"authorized developer", func(*integrations.Comment) {}, handofftest.Authorized("dev"), nil, true},
		{"login match ignores case", func(c *integrations.Comment) { c.Author = "Dev" }, handofftest.Authorized("dev"), nil, true},
		{"unlisted login", func(c *integrations.Comment) { c.Author = "mallory" }, handofftest.Authorized("dev"), nil, false},
		{"deleted account", func(c *integrations.Comment) { c.Author = "ghost" }, everyone, nil, false},
		{"no author", func(c *integrations.Comment) { c.Author = "" }, everyone, nil, false},
		{"no association with the repository", func(c *integrations.Comment) { c.AuthorAssociation = "NONE" }, everyone, nil, false},
		{"no allowlist", func(*integrations.Comment) {}, nil, nil, false},
		{"the loop's own comment naming nobody is nobody's", func(c *integrations.Comment) {
			*c = handofftest.SelfComment(loopLogin, c.Body, c.ID, c.CreatedAt)
		}, handofftest.Authorized("dev"), handofftest.SelfBy(loopLogin), false},
		{"the loop's own comment for an unauthorized person", func(c *integrations.Comment) {
			line, _ := handoff.PostedByLine("mallory")
			*c = handofftest.SelfComment(loopLogin, c.Body+"\n"+line, c.ID, c.CreatedAt)
		}, handofftest.Authorized("dev"), handofftest.SelfBy(loopLogin), false},
		{"forged self-marker", func(c *integrations.Comment) {
			c.Author, c.Body = "mallory", integrations.MarkSelfAuthored(c.Body)
		}, handofftest.Authorized("dev"), handofftest.SelfBy(loopLogin), false},
		{"name in the text is not the author", func(c *integrations.Comment) {
			c.Author = "mallory"
			c.Body = strings.Replace(c.Body, "source: ", "source: posted by @dev via ", 1)
		}, handofftest.Authorized("dev"), nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, c := recordComment(t, spec(handoff.StageRequirementsSettled), "dev", 7, t0)
			tc.mutate(&c)
			found, rej := handoff.FindRecord([]integrations.Comment{c}, tc.auth, tc.self)
			if tc.honour {
				require.NotNil(t, found)
				assert.Equal(t, c.Author, found.Author)
				assert.Empty(t, rej)
				return
			}
			assert.Nil(t, found)
			require.Len(t, rej, 1)
			assert.Equal(t, handoff.CodeUnauthorized, rej[0].Code)
			assert.Equal(t, c.Author, rej[0].Author)
		})
	}
}

// A record the loop posted is attributed to the authorized person its
// posted-by line names — never to the loop — and only that last line counts.
func TestFindRecordAttributesTheLoopsRecordToItsPoster(t *testing.T) {
	_, c := recordComment(t, spec(handoff.StageRequirementsSettled), "dev", 7, t0)
	line, err := handoff.PostedByLine("@Dev")
	require.NoError(t, err)
	self := handofftest.SelfComment(loopLogin, c.Body+"\n"+line, c.ID, c.CreatedAt)
	found, rej := handoff.FindRecord([]integrations.Comment{self}, handofftest.Authorized("dev"), handofftest.SelfBy(loopLogin))
	require.NotNil(t, found, rej)
	assert.Equal(t, "Dev", found.Author)
	assert.Equal(t, loopLogin, found.Comment.Author)

	by, ok := handoff.PostedBy(self.Body)
	assert.True(t, ok)
	assert.Equal(t, "Dev", by)
	_, ok = handoff.PostedBy(c.Body + "\n" + line + "\ntrailing words")
	assert.False(t, ok, "the posted-by line counts only as the last line")
	for _, bad := range []string{"", "a b", "de\nv", "-dev", "<!--"} {
		_, err := handoff.PostedByLine(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func multiPart(t *testing.T) (handoff.Record, []string) {
	t.Helper()
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	for i, a := range rec.Artifacts {
		rec.Files[a.Name] = strings.Repeat(a.Name+" body line\n", 4000)
		rec.Artifacts[i].SHA256 = handoff.HashLF([]byte(rec.Files[a.Name]))
	}
	bodies, err := handoff.Render(rec)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(bodies), 3)
	return rec, bodies
}

func commentsOf(author string, bodies []string, firstID int64) []integrations.Comment {
	out := []integrations.Comment{}
	for i, b := range bodies {
		out = append(out, handofftest.Comment(author, b, firstID+int64(i), t0.Add(time.Duration(firstID+int64(i))*time.Minute)))
	}
	return out
}

func TestFindRecordAssemblesPartsByTheAuthorOnly(t *testing.T) {
	rec, bodies := multiPart(t)
	auth := handofftest.Authorized("dev", "alice")

	t.Run("all parts by the author", func(t *testing.T) {
		cs := commentsOf("dev", bodies, 10)
		found, rej := handoff.FindRecord(cs, auth, nil)
		require.NotNil(t, found)
		assert.Empty(t, rej)
		assert.Equal(t, rec.Files, found.Record.Files)
		assert.Equal(t, cs[1:], found.Parts)
	})
	t.Run("a part by someone else never counts", func(t *testing.T) {
		cs := commentsOf("dev", bodies[:len(bodies)-1], 10)
		cs = append(cs, commentsOf("alice", bodies[len(bodies)-1:], 50)...)
		found, rej := handoff.FindRecord(cs, auth, nil)
		assert.Nil(t, found)
		assert.ElementsMatch(t, []handoff.Code{handoff.CodeUnauthorized, handoff.CodeMissingParts}, codes(rej))
	})
	t.Run("a foreign copy beside the author's part is ignored", func(t *testing.T) {
		cs := commentsOf("dev", bodies, 10)
		forged := strings.Replace(bodies[1], "body line", "rm -rf line", 1)
		cs = append(cs, commentsOf("mallory", []string{forged}, 5)...)
		found, rej := handoff.FindRecord(cs, auth, nil)
		require.NotNil(t, found)
		assert.Equal(t, rec.Files, found.Record.Files)
		require.Len(t, rej, 1)
		assert.Equal(t, handoff.CodeUnauthorized, rej[0].Code)
		assert.Equal(t, "mallory", rej[0].Author)
	})
	t.Run("an identical repost of a part is harmless", func(t *testing.T) {
		cs := commentsOf("dev", append(bodies, bodies[1]), 10)
		found, rej := handoff.FindRecord(cs, auth, nil)
		require.NotNil(t, found)
		assert.Empty(t, rej)
	})
	t.Run("two different parts with one index reject the record", func(t *testing.T) {
		other := strings.Replace(bodies[1], "body line", "other line", 1)
		cs := commentsOf("dev", append(bodies, other), 10)
		found, rej := handoff.FindRecord(cs, auth, nil)
		assert.Nil(t, found)
		assert.Equal(t, []handoff.Code{handoff.CodeConflictingPart}, codes(rej))
	})
	t.Run("a tampered part still parses and is caught by import", func(t *testing.T) {
		tampered := append([]string{}, bodies...)
		tampered[1] = strings.Replace(bodies[1], "body line", "body LINE", 1)
		found, _ := handoff.FindRecord(commentsOf("dev", tampered, 10), auth, nil)
		require.NotNil(t, found)
		_, err := handoff.Materialize(t.TempDir(), found.Record, handoff.TicketSource(found.Record.Files))
		require.ErrorIs(t, err, handoff.ErrHashMismatch)
	})
}

func TestFindRecordOrdersByTimeThenID(t *testing.T) {
	_, a := recordComment(t, spec(handoff.StageBrainstormSettled), "dev", 5, t0)
	want, b := recordComment(t, spec(handoff.StageRequirementsSettled), "dev", 6, t0)
	found, rej := handoff.FindRecord([]integrations.Comment{b, a}, handofftest.Authorized("dev"), nil)
	require.NotNil(t, found)
	assert.Equal(t, want, found.Record)
	assert.Equal(t, []handoff.Code{handoff.CodeSuperseded}, codes(rej))
}

func TestFindRecordNothingToFind(t *testing.T) {
	cs := []integrations.Comment{
		handofftest.Comment("dev", "the-loop execute", 1, t0),
		handofftest.Comment("dev", "Docs mention `"+handoff.RecordMarker+"` inline", 2, t0),
	}
	found, rej := handoff.FindRecord(cs, handofftest.Authorized("dev"), nil)
	assert.Nil(t, found)
	assert.Empty(t, rej)
	found, rej = handoff.FindRecord(nil, nil, nil)
	assert.Nil(t, found)
	assert.Empty(t, rej)
}
