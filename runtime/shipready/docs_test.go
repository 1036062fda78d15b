package shipready_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/runtime/shipready"
)

func TestCapabilityDocs(t *testing.T) {
	record := func(capDocs, docs string) string {
		return "---\ntype: evidence\n---\n# Documentation evidence\n\n## Capability docs\n\n" + capDocs + "\n\n## Documentation\n\n" + docs + "\n"
	}
	tests := []struct {
		name     string
		docs     shipready.DocsEvidence
		verdict  shipready.Verdict
		messages []string
	}{
		{name: "none affected and no capability doc changed passes", verdict: shipready.Pass,
			docs: shipready.DocsEvidence{FilesRead: true, ChangedFiles: []string{"a.go"}, RecordFound: true, Record: record("None affected.", "README: new flag.")}},
		{name: "each changed capability doc named passes", verdict: shipready.Pass,
			docs: shipready.DocsEvidence{FilesRead: true, ChangedFiles: []string{"docs/capabilities/polling.md", "service/poll.go"}, RecordFound: true,
				Record: record("- docs/capabilities/polling.md: the PR listing.", "docs/poller.md")}},
		{name: "a named doc the pull request does not change blocks", verdict: shipready.Block,
			docs:     shipready.DocsEvidence{FilesRead: true, ChangedFiles: []string{"a.go"}, RecordFound: true, Record: record("docs/capabilities/polling.md", "x")},
			messages: []string{"evidence/documentation.md names docs/capabilities/polling.md, which pull request #12 does not change"}},
		{name: "a changed doc the record does not name blocks", verdict: shipready.Block,
			docs:     shipready.DocsEvidence{FilesRead: true, ChangedFiles: []string{"docs/capabilities/gates.md"}, RecordFound: true, Record: record("none affected", "x")},
			messages: []string{"pull request #12 changes docs/capabilities/gates.md, which `## Capability docs` in evidence/documentation.md does not name"}},
		{name: "neither a doc nor none affected blocks", verdict: shipready.Block,
			docs:     shipready.DocsEvidence{FilesRead: true, RecordFound: true, Record: record("We looked.", "x")},
			messages: []string{"`## Capability docs` in evidence/documentation.md names no file under docs/capabilities/ and does not record \"none affected\""}},
		{name: "an empty section blocks, a guidance comment is not content", verdict: shipready.Block,
			docs: shipready.DocsEvidence{FilesRead: true, RecordFound: true, RecordPath: "docs/specs/issue-12/evidence/documentation.md",
				Record: record("<!-- list the capability docs -->", "")},
			messages: []string{
				"docs/specs/issue-12/evidence/documentation.md: the `## Capability docs` section is missing or empty",
				"docs/specs/issue-12/evidence/documentation.md: the `## Documentation` section is missing or empty",
			}},
		{name: "a heading inside a fence is not the section", verdict: shipready.Block,
			docs:     shipready.DocsEvidence{FilesRead: true, RecordFound: true, Record: "```\n## Capability docs\nnone affected\n```\n## Documentation\n\nx\n"},
			messages: []string{"evidence/documentation.md: the `## Capability docs` section is missing or empty"}},
		{name: "a path escaping the docs folder blocks", verdict: shipready.Block,
			docs:     shipready.DocsEvidence{FilesRead: true, RecordFound: true, Record: record("docs/capabilities/../../secrets.md", "x")},
			messages: []string{"evidence/documentation.md names docs/capabilities/../../secrets.md, which is not a clean path under docs/capabilities/"}},
		{name: "changed files not read wait", verdict: shipready.Wait,
			docs:     shipready.DocsEvidence{RecordFound: true, Record: record("none affected", "x")},
			messages: []string{"the files pull request #12 changes have not been read yet"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ready()
			s.Docs = tc.docs
			got := shipready.Evaluate(s)
			assert.Equal(t, tc.verdict, got.Verdict)
			assert.Equal(t, tc.messages, got.Messages())
		})
	}
}
