package integrations

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAPIErrorRendering(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		err  *APIError
		want string
	}{
		{&APIError{System: "github", Op: OpGetIssue, Target: "o/r#1", Status: 404, Kind: ErrNotFound, Message: "Not Found"}, "github get-issue o/r#1: HTTP 404 not found: Not Found"},
		{&APIError{System: "jira", Op: OpCreateIssue, Target: "PROJ", Status: 400, Kind: ErrInvalid, Fields: map[string]string{"summary": "required", "parent": "missing"}}, "jira create-issue PROJ: HTTP 400 invalid request (parent: missing; summary: required)"},
		{&APIError{System: "github", Op: OpListComments, Status: 403, Kind: ErrRateLimited, RetryAt: at}, "github list-comments: HTTP 403 rate limited; retry after 2030-01-02T03:04:05Z"},
		{&APIError{System: "slack", Kind: ErrInvalid, Message: "refused before sending"}, "slack: invalid request: refused before sending"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.err.Error())
		assert.True(t, errors.Is(tc.err, tc.err.Kind))
	}
}

func TestKindForStatus(t *testing.T) {
	for status, want := range map[int]error{401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound, 410: ErrNotFound, 400: ErrInvalid, 409: ErrInvalid, 422: ErrInvalid, 429: ErrRateLimited, 500: ErrUnavailable, 502: ErrUnavailable, 200: nil, 302: nil} {
		assert.Equal(t, want, KindForStatus(status), "status %d", status)
	}
}

func TestInvalidf(t *testing.T) {
	err := Invalidf("jira", OpCreateIssue, "project %s is not configured", "OPS")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Equal(t, "jira create-issue: invalid request: project OPS is not configured", err.Error())
}

func TestPhaseLabel(t *testing.T) {
	assert.Equal(t, "loop:design", PhaseLabel("design"))
}
