package shipready

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/markdown"
)

// Capability-docs conventions.
const (
	// CapabilityDocsDir holds the organized view of what the product does;
	// a change updates the docs it affects in the same pull request.
	CapabilityDocsDir = "docs/capabilities/"
	// DocumentationRecord is the spec folder's record of the docs a change
	// updated, relative to the spec folder.
	DocumentationRecord = "evidence/documentation.md"
	// SectionCapabilityDocs names each capability doc the change updates,
	// or records "none affected".
	SectionCapabilityDocs = "Capability docs"
	// SectionDocumentation describes the other documentation changes.
	SectionDocumentation = "Documentation"
	// NoneAffected is what SectionCapabilityDocs says when no capability
	// doc is affected.
	NoneAffected = "none affected"
)

// DocsEvidence is what the capability-docs condition reads.
type DocsEvidence struct {
	// ChangedFiles are the paths the pull request changes
	// (ListPullRequestFiles); FilesRead says they were read.
	ChangedFiles []string
	FilesRead    bool
	// Record is the content of evidence/documentation.md; RecordFound
	// says the file exists.
	Record      string
	RecordFound bool
	// RecordPath is how messages name the record (DocumentationRecord
	// when empty), e.g. docs/specs/issue-12/evidence/documentation.md.
	RecordPath string
	// Scope is how messages name what changed ChangedFiles when that is
	// more than the one pull request evaluated (its name when empty), e.g.
	// "the pull requests of issue-12 (octo/app#3, octo/infra#4)".
	Scope string
}

func (d DocsEvidence) scope(pr integrations.PullRequest) string {
	if d.Scope != "" {
		return d.Scope
	}
	return prName(pr)
}

// capabilityPath finds the capability doc paths a record names.
var capabilityPath = regexp.MustCompile(`docs/capabilities/[A-Za-z0-9._/-]*[A-Za-z0-9_-]`)

func evalDocs(pr integrations.PullRequest, d DocsEvidence) Item {
	it := Item{Name: ItemDocs}
	record := d.RecordPath
	if record == "" {
		record = DocumentationRecord
	}
	block := func(format string, args ...any) {
		it.Messages = append(it.Messages, fmt.Sprintf(format, args...))
	}
	if !d.RecordFound {
		block("%s is missing: name the capability docs this change updates under `## %s` (or record %q) and the documentation changes under `## %s`",
			record, SectionCapabilityDocs, NoneAffected, SectionDocumentation)
		it.Verdict = Block
		return it
	}
	sections := markdown.Sections(d.Record)
	capDocs := strings.TrimSpace(stripHTMLComments(sections[SectionCapabilityDocs]))
	for _, title := range []string{SectionCapabilityDocs, SectionDocumentation} {
		if strings.TrimSpace(stripHTMLComments(sections[title])) == "" {
			block("%s: the `## %s` section is missing or empty", record, title)
		}
	}
	if len(it.Messages) > 0 {
		it.Verdict = Block
		return it
	}
	if !d.FilesRead {
		it.Verdict = Wait
		it.Messages = []string{fmt.Sprintf("the files %s changes have not been read yet", d.scope(pr))}
		return it
	}
	named, unsafe := namedCapabilityDocs(capDocs)
	for _, p := range unsafe {
		block("%s names %s, which is not a clean path under %s", record, p, CapabilityDocsDir)
	}
	changed := changedCapabilityDocs(d.ChangedFiles)
	for _, p := range named {
		if !slices.Contains(changed, p) {
			block("%s names %s, which %s does not change", record, p, d.scope(pr))
		}
	}
	for _, p := range changed {
		if !slices.Contains(named, p) {
			block("%s changes %s, which `## %s` in %s does not name", d.scope(pr), p, SectionCapabilityDocs, record)
		}
	}
	if len(named) == 0 && len(unsafe) == 0 && !markdown.ContainsFoldASCII(capDocs, NoneAffected) {
		block("`## %s` in %s names no file under %s and does not record %q", SectionCapabilityDocs, record, CapabilityDocsDir, NoneAffected)
	}
	if len(it.Messages) > 0 {
		it.Verdict = Block
		return it
	}
	it.Verdict = Pass
	if len(named) == 0 {
		it.Messages = []string{"capability docs: " + NoneAffected}
	} else {
		it.Messages = []string{"capability docs updated: " + strings.Join(named, ", ")}
	}
	return it
}

// namedCapabilityDocs returns the distinct capability doc paths text names,
// in order, and the named paths that are not clean.
func namedCapabilityDocs(text string) (named, unsafe []string) {
	for _, p := range capabilityPath.FindAllString(text, -1) {
		switch {
		case path.Clean(p) != p || strings.Contains(p, ".."):
			if !slices.Contains(unsafe, p) {
				unsafe = append(unsafe, p)
			}
		case !slices.Contains(named, p):
			named = append(named, p)
		}
	}
	return named, unsafe
}

// changedCapabilityDocs filters files to those under CapabilityDocsDir.
func changedCapabilityDocs(files []string) []string {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, CapabilityDocsDir) && len(f) > len(CapabilityDocsDir) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// stripHTMLComments removes HTML comments (a template's guidance, or a
// marker typed into agent-written text) and neutralises an unclosed one.
func stripHTMLComments(s string) string {
	s = htmlComment.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "<!--", "&lt;!--")
}
