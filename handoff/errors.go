package handoff

import (
	"errors"
	"fmt"
)

// Code names why a record was rejected; docs/handoff.md lists every code.
type Code string

// Rejection codes. Every error Parse, Render and Validate return is an
// *Error carrying one of these.
const (
	// Structure of the comment.
	CodeNoRecord         Code = "no-record"          // no record marker line
	CodeMarkerNotFirst   Code = "marker-not-first"   // text before the marker
	CodeNoKeyBlock       Code = "no-key-block"       // marker not followed by the key block fence
	CodeUnterminated     Code = "unterminated-block" // key block or file body never closed
	CodeUnexpectedText   Code = "unexpected-text"    // stray text outside the blocks
	CodeMalformedLine    Code = "malformed-line"     // a key-block line that is not "key: value"
	CodeUnknownKey       Code = "unknown-key"
	CodeDuplicateKey     Code = "duplicate-key"
	CodeMissingKey       Code = "missing-key"
	CodeEmptyValue       Code = "empty-value"
	CodeBadValue         Code = "bad-value" // control characters, padding, too long
	CodeUnknownVersion   Code = "unknown-version"
	CodeUnknownStage     Code = "unknown-stage"
	CodeEnterNotAllowed  Code = "enter-not-allowed" // abuse case 2
	CodeEnterMismatch    Code = "enter-mismatch"
	CodeBadArtifactLine  Code = "bad-artifact-line"
	CodeUnknownArtifact  Code = "unknown-artifact"
	CodeBadHash          Code = "bad-hash"
	CodeDuplicate        Code = "duplicate-artifact"
	CodeArtifactOrder    Code = "artifact-order"
	CodeReqAndBugfix     Code = "requirements-and-bugfix"
	CodeStageArtifacts   Code = "stage-artifacts"
	CodeUnknownCarrier   Code = "unknown-carrier"
	CodeBadBranch        Code = "bad-branch"
	CodeMissingBranch    Code = "missing-branch"
	CodeBranchNotAllowed Code = "branch-not-allowed"
	CodeBadPullRequest   Code = "bad-pull-request"
	CodeBadSpecArtifact  Code = "bad-spec-artifact"
	CodeMissingSpec      Code = "missing-spec-artifact"
	CodeBadMirror        Code = "bad-mirror"
	CodeBadApproved      Code = "bad-approved-in-chat"
	CodeApprovedFurthest Code = "approved-furthest"
	// Carried files.
	CodeBadFileBlock  Code = "bad-file-block"
	CodeFilesNotCarry Code = "files-not-ticket"
	CodeUnknownFile   Code = "unknown-file"
	CodeFileOrder     Code = "file-order"
	CodeMissingFile   Code = "missing-file"
	CodeFileMismatch  Code = "file-hash-mismatch" // Render only; Parse leaves hashes to import
	CodeBadFileText   Code = "bad-file-text"
	// Continuation parts.
	CodeBadParts     Code = "bad-parts"
	CodeBadPart      Code = "bad-part"
	CodeMissingParts Code = "missing-parts"
	CodeTooLarge     Code = "too-large"
	// FindRecord only.
	CodeUnauthorized    Code = "unauthorized"
	CodeConflictingPart Code = "conflicting-parts"
	CodeSuperseded      Code = "superseded"
)

// Codes returns every rejection code, in the order docs/handoff.md lists
// them.
func Codes() []Code {
	return []Code{
		CodeNoRecord, CodeMarkerNotFirst, CodeNoKeyBlock, CodeUnterminated, CodeUnexpectedText,
		CodeMalformedLine, CodeUnknownKey, CodeDuplicateKey, CodeMissingKey, CodeEmptyValue,
		CodeBadValue, CodeUnknownVersion, CodeUnknownStage, CodeEnterNotAllowed,
		CodeEnterMismatch, CodeBadArtifactLine, CodeUnknownArtifact, CodeBadHash, CodeDuplicate,
		CodeArtifactOrder, CodeReqAndBugfix, CodeStageArtifacts, CodeUnknownCarrier,
		CodeBadBranch, CodeMissingBranch, CodeBranchNotAllowed, CodeBadPullRequest,
		CodeBadSpecArtifact, CodeMissingSpec, CodeBadMirror, CodeBadApproved,
		CodeApprovedFurthest, CodeBadFileBlock, CodeFilesNotCarry, CodeUnknownFile,
		CodeFileOrder, CodeMissingFile, CodeFileMismatch, CodeBadFileText, CodeBadParts,
		CodeBadPart, CodeMissingParts, CodeTooLarge, CodeUnauthorized, CodeConflictingPart,
		CodeSuperseded,
	}
}

// Error is a rejected record: a code, the 1-based line of the comment where
// the problem is (0 when it is about the record as a whole), and a message
// naming the field and the fix.
type Error struct {
	Code Code
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("handoff record rejected (%s) at line %d: %s", e.Code, e.Line, e.Msg)
	}
	return fmt.Sprintf("handoff record rejected (%s): %s", e.Code, e.Msg)
}

func rejectf(code Code, line int, format string, args ...any) *Error {
	return &Error{Code: code, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the rejection code carried by err, or "" when err is not a
// record rejection.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
