package relations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

func TestScanBody(t *testing.T) {
	child := func(r integrations.Ref) relations.Found {
		return relations.Found{Ref: r, Kind: integrations.RelChild, Via: "task-list"}
	}
	by := func(r integrations.Ref) relations.Found {
		return relations.Found{Ref: r, Kind: integrations.RelBlockedBy, Via: "body"}
	}
	blocks := func(r integrations.Ref) relations.Found {
		return relations.Found{Ref: r, Kind: integrations.RelBlocking, Via: "body"}
	}
	tests := []struct {
		name     string
		home     integrations.Ref
		body     string
		want     []relations.Found
		problems int
	}{
		{"task list of every form", ghHome, "Plan:\n- [ ] #12\n- [x] octo/gadgets#3 the API\n* [X] jira:OPS-7\n+ [ ] https://github.com/octo/tools/issues/9\n",
			[]relations.Found{child(gh("", "octo", "widgets", 12)), child(gh("", "octo", "gadgets", 3)), child(jr("OPS-7")), child(gh("github.com", "octo", "tools", 9))}, 0},
		{"ordinary tasks are not children", ghHome, "- [ ] write the docs for #12\n- [ ] #12: schema\n- #13\n", []relations.Found{child(gh("", "octo", "widgets", 12))}, 0},
		{"relation lines", ghHome, "Blocked by: #2, jira:OPS-7\n**Depends on:** octo/gadgets#3 and #4\n- Blocks: #9.\n",
			[]relations.Found{by(gh("", "octo", "widgets", 2)), by(jr("OPS-7")), by(gh("", "octo", "gadgets", 3)), by(gh("", "octo", "widgets", 4)), blocks(gh("", "octo", "widgets", 9))}, 0},
		{"case-insensitive keyword", jiraHome, "blocked BY: OPS-2\n", []relations.Found{by(jr("OPS-2"))}, 0},
		{"fenced code and quotes are skipped", ghHome, "```\nBlocked by: #2\n- [ ] #3\n```\n> Blocked by: #4\n~~~md\n- [ ] #5\n~~~\n- [ ] #6\n", []relations.Found{child(gh("", "octo", "widgets", 6))}, 0},
		{"a bad word is a problem, the rest still count", ghHome, "Blocked by: #2, soon, PROJ-1\n", []relations.Found{by(gh("", "octo", "widgets", 2))}, 2},
		{"self references and repeats are dropped", ghHome, "Blocked by: #1, #2, #2\n- [ ] #1\n", []relations.Found{by(gh("", "octo", "widgets", 2))}, 0},
		{"prose mentioning blocks is not a relation", ghHome, "This blocks nothing until #3 lands.\n", nil, 0},
		{"CRLF bodies", ghHome, "Blocked by: #2\r\n- [ ] #3\r\n", []relations.Found{by(gh("", "octo", "widgets", 2)), child(gh("", "octo", "widgets", 3))}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := relations.ScanBody(tt.body, tt.home)
			assert.Equal(t, tt.want, got)
			assert.Len(t, problems, tt.problems, "%v", problems)
		})
	}
}
