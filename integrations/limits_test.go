package integrations

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	githubLike = Limits{System: "github", Display: "GitHub", MaxComment: 200, MaxLabel: 5}
	jiraLike   = Limits{System: "jira", Display: "Jira", MaxComment: 200, MaxLabel: 5, NoSpaceInLabels: true}
)

func TestMarkedBodyCarriesTheMarkerWithinTheLimit(t *testing.T) {
	got, err := githubLike.MarkedBody(OpCreateComment, "hi")
	require.NoError(t, err)
	assert.True(t, IsSelfAuthored(got))

	_, err = Limits{System: "github", Display: "GitHub", MaxComment: 10_000}.MarkedBody(OpCreateComment, "  \n")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "the comment body is empty")

	_, err = jiraLike.MarkedBody(OpEditComment, strings.Repeat("x", 200))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "with the marker; Jira allows 200")
	assert.ErrorContains(t, err, "jira edit-comment")
}

func TestEditedBodyNeedsAPositiveID(t *testing.T) {
	_, err := githubLike.EditedBody(OpEditComment, 0, "hi")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "comment id 0 is not positive")
	got, err := githubLike.EditedBody(OpEditComment, 3, "hi")
	require.NoError(t, err)
	assert.True(t, IsSelfAuthored(got))
}

func TestCleanLabels(t *testing.T) {
	tests := []struct {
		name    string
		limits  Limits
		in      []string
		want    []string
		wantErr string
	}{
		{"trimmed, repeats and blanks dropped", githubLike, []string{" a ", "b", "a", "", "  "}, []string{"a", "b"}, ""},
		{"too long", githubLike, []string{"toolong"}, nil, `label "toolong" is longer than 5 characters`},
		{"space allowed on GitHub", githubLike, []string{"a b"}, []string{"a b"}, ""},
		{"space refused on Jira", jiraLike, []string{"a b"}, nil, `label "a b" contains whitespace, which Jira labels cannot; use - or _ instead`},
		{"length counts characters", jiraLike, []string{"ünïcö"}, []string{"ünïcö"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.limits.CleanLabels(OpAddLabels, tt.in)
			if tt.wantErr != "" {
				assert.ErrorIs(t, err, ErrInvalid)
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
