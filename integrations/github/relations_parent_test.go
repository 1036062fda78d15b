package github

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parent request is skipped only when the server says, with a null
// parent_issue_url, that there is no parent; a server that predates the
// field is asked.
func TestParentIssueURLDecidesWhetherToAskForTheParent(t *testing.T) {
	tests := []struct {
		name, doc string
		skip      bool
	}{
		{"a server predating the field", `{"number": 1}`, false},
		{"no parent", `{"number": 1, "parent_issue_url": null}`, true},
		{"a parent", `{"number": 1, "parent_issue_url": "https://api.github.com/repos/o/r/issues/9"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var is relIssue
			require.NoError(t, json.Unmarshal([]byte(tt.doc), &is))
			assert.Equal(t, 1, is.GetNumber(), "the embedded issue still decodes")
			assert.Equal(t, tt.skip, is.ParentIssueURL.none())
		})
	}
}
