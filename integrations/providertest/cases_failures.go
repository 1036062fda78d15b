package providertest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

func apiErr(t *testing.T, err error) *integrations.APIError {
	t.Helper()
	var api *integrations.APIError
	require.True(t, errors.As(err, &api), "error %v is not an *integrations.APIError", err)
	return api
}

func listRequests(f *Server) []Request {
	var out []Request
	for _, r := range f.Requests() {
		if r.Method == http.MethodGet && (strings.HasSuffix(r.Path, "/comments") || strings.HasSuffix(r.Path, "/comment")) {
			out = append(out, r)
		}
	}
	return out
}

func testPagination(t *testing.T, h *rig) {
	h.f.SetPageSize(2)
	var want []int64
	for i := range 5 {
		want = append(want, h.f.AddComment(h.ref(), "alice", "MEMBER", strings.Repeat("x", i+1)).ID)
	}
	got, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	var ids []int64
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	assert.Equal(t, want, ids, "every comment, oldest first, across pages")
	assert.Len(t, listRequests(h.f), 3, "five comments at two per page take three requests")
}

func testNotFound(t *testing.T, h *rig) {
	_, err := h.p.GetIssue(h.ctx, h.f.Missing())
	assert.ErrorIs(t, err, integrations.ErrNotFound)
	assert.Equal(t, 404, apiErr(t, err).Status)
	_, err = h.p.ListComments(h.ctx, h.f.Missing())
	assert.ErrorIs(t, err, integrations.ErrNotFound)
	_, err = h.p.CreateComment(h.ctx, h.f.Missing(), "hello")
	assert.ErrorIs(t, err, integrations.ErrNotFound)
	assert.Equal(t, 3, h.f.RequestCount(), "a 404 is never retried")
}

func testUnauthorized(t *testing.T, h *rig) {
	_, err := h.p.GetIssue(h.ctx, h.ref())
	assert.ErrorIs(t, err, integrations.ErrUnauthorized)
	assert.Equal(t, 401, apiErr(t, err).Status)
	h.noSecret(t, err)
	_, err = h.p.ListComments(h.ctx, h.ref())
	assert.ErrorIs(t, err, integrations.ErrUnauthorized)
	assert.Equal(t, 2, h.f.RequestCount(), "a 401 is never retried")
}

func testValidation(t *testing.T, h *rig) {
	h.f.RejectNext("title", "the title is not acceptable")
	_, err := h.p.CreateIssue(h.ctx, h.f.NewIssue("Refused"))
	require.ErrorIs(t, err, integrations.ErrInvalid)
	api := apiErr(t, err)
	assert.Contains(t, []int{400, 422}, api.Status)
	assert.Contains(t, api.Fields["title"], "the title is not acceptable")
	assert.Contains(t, err.Error(), "title")
	assert.Equal(t, 1, h.f.RequestCount(), "a validation error is never retried")

	before := h.f.RequestCount()
	_, err = h.p.CreateIssue(h.ctx, h.f.NewIssue(" "))
	assert.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Equal(t, before, h.f.RequestCount(), "an empty title is refused before any request")
}

func testStorm(t *testing.T, h *rig) {
	h.f.FailNext(3, http.StatusBadGateway)
	_, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	sleeps := h.slept()
	require.Len(t, sleeps, 3)
	for i, d := range sleeps {
		ceiling := time.Second << i
		assert.GreaterOrEqual(t, d, ceiling/2, "wait %d", i)
		assert.LessOrEqual(t, d, ceiling, "wait %d", i)
	}
	assert.Equal(t, 4, h.f.RequestCount())

	h.f.FailNext(2, http.StatusServiceUnavailable)
	require.NoError(t, h.p.EditIssueBody(h.ctx, h.ref(), "after the storm"))
	stored, _ := h.f.Issue(h.ref())
	assert.Equal(t, "after the storm", stored.Body)
}

func testStormExhausted(t *testing.T, h *rig) {
	h.f.FailNext(10, http.StatusBadGateway)
	_, err := h.p.GetIssue(h.ctx, h.ref())
	require.ErrorIs(t, err, integrations.ErrUnavailable)
	assert.Equal(t, 502, apiErr(t, err).Status)
	assert.Equal(t, 3, h.f.RequestCount(), "one attempt and two retries")
}

// testMalformed: an answer cut short reads as what it is, naming the
// system, not as an outage.
func testMalformed(t *testing.T, h *rig) {
	h.f.MalformNext(1)
	_, err := h.p.ListComments(h.ctx, h.ref())
	require.ErrorIs(t, err, integrations.ErrMalformed)
	assert.NotErrorIs(t, err, integrations.ErrUnavailable)
	name := map[string]string{"github": "GitHub", "jira": "Jira"}[h.f.System()]
	assert.Contains(t, err.Error(), "malformed response from "+name+" (")
	assert.NotContains(t, err.Error(), "unavailable")
	_, err = h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err, "the next answer is read as usual")
}

func testSecondaryLimit(t *testing.T, h *rig) {
	h.f.SecondaryLimitNext(7 * time.Second)
	is, err := h.p.GetIssue(h.ctx, h.ref())
	require.NoError(t, err)
	assert.Equal(t, "Seeded ticket", is.Title)
	assert.Equal(t, []time.Duration{7 * time.Second}, h.slept())

	h.f.SecondaryLimitNext(3 * time.Second)
	_, err = h.p.CreateComment(h.ctx, h.ref(), "posted once")
	require.NoError(t, err)
	assert.Len(t, h.f.Comments(h.ref()), 1, "a rate-limited POST is resent exactly once")
	assert.Equal(t, []time.Duration{7 * time.Second, 3 * time.Second}, h.slept())
}

func testPrimaryLimit(t *testing.T, h *rig) {
	h.f.PrimaryLimitNext(20 * time.Second)
	_, err := h.p.GetIssue(h.ctx, h.ref())
	require.NoError(t, err)
	sleeps := h.slept()
	require.Len(t, sleeps, 1)
	assert.GreaterOrEqual(t, sleeps[0], 19*time.Second)
	assert.LessOrEqual(t, sleeps[0], 22*time.Second)
}

func testLimitBeyondCap(t *testing.T, h *rig) {
	h.f.PrimaryLimitNext(2 * time.Hour)
	_, err := h.p.GetIssue(h.ctx, h.ref())
	require.ErrorIs(t, err, integrations.ErrRateLimited)
	assert.Empty(t, h.slept(), "a reset beyond the wait cap is not slept on")
	assert.WithinDuration(t, time.Now().Add(2*time.Hour), apiErr(t, err).RetryAt, 5*time.Second)
	assert.Equal(t, 1, h.f.RequestCount())
}

func testConditional(t *testing.T, h *rig) {
	h.f.AddComment(h.ref(), "alice", "MEMBER", "one")
	h.f.AddComment(h.ref(), "bob", "NONE", "two")
	first, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	quota := h.f.QuotaRemaining()

	second, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	assert.Equal(t, first, second, "a 304 yields the cached page")
	reqs := listRequests(h.f)
	require.Len(t, reqs, 2)
	assert.Empty(t, reqs[0].IfNoneMatch)
	assert.NotEmpty(t, reqs[1].IfNoneMatch, "the second listing is conditional")
	assert.Equal(t, http.StatusNotModified, reqs[1].Status)
	assert.Equal(t, quota, h.f.QuotaRemaining(), "an unchanged listing costs no quota")

	h.f.AddComment(h.ref(), "carol", "MEMBER", "three")
	third, err := h.p.ListComments(h.ctx, h.ref())
	require.NoError(t, err)
	assert.Len(t, third, 3, "a changed listing is fetched again")
	assert.Equal(t, http.StatusOK, listRequests(h.f)[2].Status)
}

func testNoCredentialLeak(t *testing.T, target Target) {
	wrong := setup(t, target, withToken("wrong-token-value-123"))
	wrong.f.EchoCredentials(true)
	_, err := wrong.p.GetIssue(wrong.ctx, wrong.ref())
	wrong.noSecret(t, err)

	h := setup(t, target, withRetries(1))
	h.f.EchoCredentials(true)
	_, err = h.p.GetIssue(h.ctx, h.f.Missing())
	h.noSecret(t, err)
	assert.Contains(t, err.Error(), "[REDACTED]", "the echoed credential is redacted, not dropped silently")
	h.f.RejectNext("summary", "bad")
	_, err = h.p.CreateIssue(h.ctx, h.f.NewIssue("x"))
	h.noSecret(t, err)
	h.f.FailNext(2, http.StatusBadGateway)
	_, err = h.p.ListComments(h.ctx, h.ref())
	assert.ErrorIs(t, err, integrations.ErrUnavailable)
	h.noSecret(t, err)
	h.f.PrimaryLimitNext(3 * time.Hour)
	_, err = h.p.GetIssue(h.ctx, h.ref())
	h.noSecret(t, err)
}

func testForeignRef(t *testing.T, h *rig) {
	foreign := integrations.Ref{System: "jira", Key: "PROJ-1"}
	if h.f.System() == "jira" {
		foreign = integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}
	}
	malformed := []integrations.Ref{foreign}
	if h.f.System() == "jira" {
		malformed = append(malformed, integrations.Ref{System: "jira", Key: "PROJ-1/../../x"}, integrations.Ref{System: "jira", Key: "PROJ 1"}, integrations.Ref{System: "jira", Key: "proj-1"})
	} else {
		malformed = append(malformed, integrations.Ref{System: "github", Owner: "..", Repo: "x", Number: 1}, integrations.Ref{System: "github", Owner: "a/b", Repo: "c", Number: 1}, integrations.Ref{System: "github", Owner: "o", Repo: "r"})
	}
	for _, ref := range malformed {
		_, err := h.p.GetIssue(h.ctx, ref)
		assert.ErrorIs(t, err, integrations.ErrInvalid, "%+v", ref)
		_, err = h.p.CreateComment(h.ctx, ref, "x")
		assert.ErrorIs(t, err, integrations.ErrInvalid, "%+v", ref)
	}
	assert.Zero(t, h.f.RequestCount(), "malformed and foreign refs are refused before any request")
}
