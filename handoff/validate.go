package handoff

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// maxValueChars bounds every free-text value (source, confirmation, URLs).
const maxValueChars = 2000

var mirrorRE = lazyre.New(`^jira:[A-Za-z0-9][A-Za-z0-9.-]*/[A-Z][A-Z0-9_]*-[1-9][0-9]*$`)

// Validate checks every rule a record must satisfy, in a fixed order, and
// returns the first violation as an *Error. Parse and Render both call it, so
// a record Render accepts is one Parse accepts. It does not compare carried
// bodies with their hashes; Render and Materialize do that.
func Validate(r Record) error {
	if err := validateRecord(r); err != nil {
		return err
	}
	return validateFiles(r)
}

// validateRecord checks everything but the carried bodies.
func validateRecord(r Record) error {
	if r.Version != Version {
		return rejectf(CodeUnknownVersion, 0, "version %d is not understood; this reader reads version %d only", r.Version, Version)
	}
	if !slices.Contains(stages, r.Stage) {
		return rejectf(CodeUnknownStage, 0, "stage %q is not one of %s; use one of them", r.Stage, strings.Join(stages, ", "))
	}
	if err := validateArtifacts(r); err != nil {
		return err
	}
	if err := validateStageArtifacts(r); err != nil {
		return err
	}
	if !slices.Contains(allowedEntries, r.Enter) {
		return rejectf(CodeEnterNotAllowed, 0, "enter %q is not a node a handoff may enter (allowed: %s); a handoff never starts past design-approval", r.Enter, strings.Join(allowedEntries, ", "))
	}
	want, _ := StageEntry(r.Stage, r.Artifacts)
	if r.Enter != want {
		return rejectf(CodeEnterMismatch, 0, "enter %q does not match stage %s with these artifacts, which enters %q; set enter to %q", r.Enter, r.Stage, want, want)
	}
	if err := validateCarrier(r); err != nil {
		return err
	}
	if err := validateApproved(r); err != nil {
		return err
	}
	if r.Mirror != "" && !mirrorRE().MatchString(r.Mirror) {
		return rejectf(CodeBadMirror, 0, "mirror %q is not jira:<site>/<KEY-123>; write it like jira:acme/PROJ-123", r.Mirror)
	}
	for _, f := range []struct{ name, value string }{{"source", r.Source}, {"confirmation", r.Confirmation}} {
		if err := checkText(f.name, f.value); err != nil {
			return err
		}
	}
	return nil
}

func validateArtifacts(r Record) error {
	seen := map[string]bool{}
	last := -1
	for _, a := range r.Artifacts {
		if !IsArtifactName(a.Name) {
			return rejectf(CodeUnknownArtifact, 0, "artifact %q is not one of %s; a record names files, never paths", a.Name, strings.Join(chain, ", "))
		}
		if !isHexHash(a.SHA256) {
			hint := "hash the file's bytes with LF line endings"
			if strings.HasPrefix(a.SHA256, "sha256:") {
				hint = "the JSON form carries the bare hex; drop the sha256: prefix"
			}
			return rejectf(CodeBadHash, 0, "artifact %s: sha256 %q is not 64 lowercase hex digits; %s", a.Name, clip(a.SHA256), hint)
		}
		if seen[a.Name] {
			return rejectf(CodeDuplicate, 0, "artifact %s is listed twice; list each file once", a.Name)
		}
		seen[a.Name] = true
		idx := chainIndex(a.Name)
		if idx <= last {
			if idx == last && (a.Name == Requirements || a.Name == Bugfix) {
				return rejectf(CodeReqAndBugfix, 0, "artifacts carry both requirements.md and bugfix.md; carry exactly one of them")
			}
			return rejectf(CodeArtifactOrder, 0, "artifact %s is out of chain order; list artifacts as %s", a.Name, strings.Join(chain, ", "))
		}
		last = idx
	}
	return nil
}

// validateStageArtifacts checks the carried files fit the stage: the stage's
// own artifact is present and nothing later than it is carried.
func validateStageArtifacts(r Record) error {
	has := func(n string) bool {
		_, ok := r.Hash(n)
		return ok
	}
	furthest := chainIndex(r.Furthest())
	need, maxIdx := "", 0
	switch r.Stage {
	case StageBrainstormSettled:
		if !has(Brainstorm) {
			need = Brainstorm
		}
	case StageRequirementsSettled:
		maxIdx = 1
		if !has(Requirements) && !has(Bugfix) {
			need = "requirements.md or bugfix.md"
		}
	case StageDesignSettled:
		maxIdx = 3
		if !has(DesignDoc) {
			need = DesignDoc
		}
	}
	if need != "" {
		return rejectf(CodeStageArtifacts, 0, "stage %s must carry %s; add it to artifacts or declare an earlier stage", r.Stage, need)
	}
	if furthest > maxIdx {
		return rejectf(CodeStageArtifacts, 0, "stage %s cannot carry %s, which a later stage produces; declare the later stage or drop the file", r.Stage, r.Furthest())
	}
	return nil
}

func validateCarrier(r Record) error {
	switch r.CarriedBy {
	case CarriedByBranch, CarriedByTicket, CarriedByArtifact:
	default:
		return rejectf(CodeUnknownCarrier, 0, "carried-by %q is not one of branch, ticket, artifact; name where the files travel", r.CarriedBy)
	}
	if r.CarriedBy == CarriedByBranch {
		if r.Branch == "" {
			return rejectf(CodeMissingBranch, 0, "carried-by branch needs branch; name the spec branch (the-loop/...)")
		}
		if err := ValidateBranch(r.Branch); err != nil {
			return err
		}
	} else {
		if r.Branch != "" {
			return rejectf(CodeBranchNotAllowed, 0, "branch is set but carried-by is %s; drop branch or set carried-by to branch", r.CarriedBy)
		}
		if r.PullRequest != 0 {
			return rejectf(CodeBranchNotAllowed, 0, "pull-request is set but carried-by is %s; a pull request comes with a spec branch", r.CarriedBy)
		}
	}
	if r.PullRequest < 0 {
		return rejectf(CodeBadPullRequest, 0, "pull-request %d is not a positive number; give the PR number or omit it", r.PullRequest)
	}
	if r.CarriedBy == CarriedByArtifact && r.SpecArtifact == "" {
		return rejectf(CodeMissingSpec, 0, "carried-by artifact needs spec-artifact; give the artifact's https URL")
	}
	if r.SpecArtifact != "" {
		if err := checkText("spec-artifact", r.SpecArtifact); err != nil {
			return err
		}
		u, err := url.Parse(r.SpecArtifact)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || strings.ContainsAny(r.SpecArtifact, " \t") {
			return rejectf(CodeBadSpecArtifact, 0, "spec-artifact %q is not an https URL; give the artifact's https:// address", r.SpecArtifact)
		}
	}
	return nil
}

func validateApproved(r Record) error {
	seen := map[string]bool{}
	for _, n := range r.ApprovedInChat {
		if _, ok := r.Hash(n); !ok {
			return rejectf(CodeBadApproved, 0, "approved-in-chat names %q, which the record does not carry; list only carried artifacts", n)
		}
		if seen[n] {
			return rejectf(CodeBadApproved, 0, "approved-in-chat lists %s twice; list it once", n)
		}
		seen[n] = true
		if n == r.Furthest() {
			return rejectf(CodeApprovedFurthest, 0, "approved-in-chat names %s, the furthest carried artifact; its approval belongs to the loop's gate, so drop it", n)
		}
	}
	return nil
}

func validateFiles(r Record) error {
	if r.CarriedBy != CarriedByTicket {
		if len(r.Files) > 0 {
			return rejectf(CodeFilesNotCarry, 0, "file bodies are present but carried-by is %s; bodies ride in the ticket only with carried-by ticket", r.CarriedBy)
		}
		return nil
	}
	for name, body := range r.Files {
		if _, ok := r.Hash(name); !ok {
			return rejectf(CodeUnknownFile, 0, "a body for %q is carried but artifacts does not list it; list it with its sha256 or drop the body", name)
		}
		if !utf8.ValidString(body) || strings.ContainsRune(body, 0) {
			return rejectf(CodeBadFileText, 0, "the body of %s is not UTF-8 text without NUL bytes; artifacts are markdown", name)
		}
	}
	for _, a := range r.Artifacts {
		if _, ok := r.Files[a.Name]; !ok {
			return rejectf(CodeMissingFile, 0, "carried-by ticket but no body for %s follows; add its <details> block", a.Name)
		}
	}
	return nil
}

// checkText checks a single-line free-text value.
func checkText(field, v string) error {
	if v == "" {
		return nil
	}
	if !utf8.ValidString(v) {
		return rejectf(CodeBadValue, 0, "%s is not valid UTF-8; write plain text", field)
	}
	if utf8.RuneCountInString(v) > maxValueChars {
		return rejectf(CodeBadValue, 0, "%s is longer than %d characters; shorten it", field, maxValueChars)
	}
	for _, c := range v {
		if unicode.IsControl(c) || c == '\u2028' || c == '\u2029' {
			return rejectf(CodeBadValue, 0, "%s contains a control character or line break; values are one line", field)
		}
		if isBidiControl(c) {
			return rejectf(CodeBadValue, 0, "%s contains a bidirectional-text control character; remove it", field)
		}
	}
	if strings.TrimSpace(v) != v {
		return rejectf(CodeBadValue, 0, "%s starts or ends with whitespace; trim it", field)
	}
	return nil
}

// isBidiControl reports the characters that reorder displayed text.
func isBidiControl(c rune) bool {
	return c == '\u061c' || c == '\u200e' || c == '\u200f' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')
}
