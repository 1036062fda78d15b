package github

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want integrations.Ref
		err  string
	}{
		{in: "github:octo/widgets#12", want: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 12}},
		{in: "octo/widgets#12", want: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 12}},
		{in: "github:ghe.example.com/octo/widgets#3", want: integrations.Ref{System: "github", Host: "ghe.example.com", Owner: "octo", Repo: "widgets", Number: 3}},
		{in: "https://github.com/octo/widgets/issues/7", want: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 7}},
		{in: "https://github.com/octo/widgets/pull/8", want: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 8}},
		{in: "https://GHE.example.com/o.r-g/re_po/issues/9/", want: integrations.Ref{System: "github", Host: "ghe.example.com", Owner: "o.r-g", Repo: "re_po", Number: 9}},
		{in: "jira:PROJ-1", err: "not a GitHub one"},
		{in: "octo/widgets", err: "no #NUMBER"},
		{in: "octo/widgets#0", err: "not an issue number"},
		{in: "octo/widgets#-1", err: "not an issue number"},
		{in: "octo/widgets#1x", err: "not an issue number"},
		{in: "../widgets#1", err: "not a valid owner"},
		{in: "octo/wid gets#1", err: "not OWNER/REPO"},
		{in: "octo/widgets/extra/x#1", err: "not OWNER/REPO"},
		{in: "https://github.com/octo/widgets/blob/main/x", err: "not a GitHub issue"},
		{in: "https://github.com/octo/widgets/issues/abc", err: "not an issue number"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRef(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseRefRoundTripsThroughString(t *testing.T) {
	for _, in := range []string{"github:octo/widgets#12", "github:ghe.example.com/octo/widgets#3"} {
		ref, err := ParseRef(in)
		require.NoError(t, err)
		assert.Equal(t, in, ref.String())
	}
}

func TestValidateBranch(t *testing.T) {
	for _, ok := range []string{"main", "the-loop/issue-12", "feature/a.b", "x_y"} {
		assert.NoError(t, ValidateBranch(ok), ok)
	}
	for _, bad := range []string{"", "@", "/x", "x/", "a//b", "a..b", "a@{b", "x.", "has space", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", `a\b`, ".hidden", "a/.b", "x.lock", "a/b.lock", "tab\tx", "del\x7f"} {
		assert.Error(t, ValidateBranch(bad), bad)
	}
}

func TestIssueURL(t *testing.T) {
	assert.Equal(t, "https://github.com/o/r/issues/4", IssueURL(integrations.Ref{Owner: "o", Repo: "r", Number: 4}))
	assert.Equal(t, "https://ghe.example.com/o/r/issues/4", IssueURL(integrations.Ref{Host: "ghe.example.com", Owner: "o", Repo: "r", Number: 4}))
}

func TestClosingLineQualifiesAnotherRepository(t *testing.T) {
	issue := integrations.Ref{System: "github", Owner: "octo", Repo: "app", Number: 12}
	assert.Equal(t, "Closes #12", ClosingLine(issue, "Octo", "App"), "the issue's own repository, compared as GitHub does")
	assert.Equal(t, "Closes octo/app#12", ClosingLine(issue, "octo", "infra"), "a bare number would name an issue of octo/infra")
}
