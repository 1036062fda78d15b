package handoff

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// Wire-format constants. docs/handoff.md describes the format in full.
const (
	// RecordMarker is the first line of every record comment.
	RecordMarker = "<!-- the-loop:handoff -->"
	// KeyBlockOpen opens the fenced key–value block under the marker.
	KeyBlockOpen = "```the-loop-handoff"
	// KeyBlockClose closes it.
	KeyBlockClose = "```"
	// fileFenceInfo is the info string of a carried body's fence.
	fileFenceInfo = "markdown"
	// noEOL marks a body chunk whose last line has no newline.
	noEOL = "noeol"
	// continuedSuffix marks a chunk that continues the previous one.
	continuedSuffix = " (continued)"
	detailsClose    = "</details>"
	recordIDLen     = 16
)

// Wire key names, in the order Render writes them.
const (
	keyVersion      = "version"
	keyStage        = "stage"
	keyEnter        = "enter"
	keyCarriedBy    = "carried-by"
	keyBranch       = "branch"
	keyPullRequest  = "pull-request"
	keySpecArtifact = "spec-artifact"
	keySource       = "source"
	keyMirror       = "mirror"
	keyApproved     = "approved-in-chat"
	keyConfirmation = "confirmation"
	keyParts        = "parts"
	keyArtifacts    = "artifacts"
)

var knownKeys = map[string]bool{
	keyVersion: true, keyStage: true, keyEnter: true, keyCarriedBy: true, keyBranch: true,
	keyPullRequest: true, keySpecArtifact: true, keySource: true, keyMirror: true,
	keyApproved: true, keyConfirmation: true, keyParts: true, keyArtifacts: true,
}

var (
	keyLineRE    = regexp.MustCompile(`^([a-z][a-z0-9-]*):(?: (.*))?$`)
	partMarkerRE = lazyre.New(`^<!-- the-loop:handoff-part record=([0-9a-f]{16}) index=([1-9][0-9]{0,5}) -->$`)
	summaryRE    = lazyre.New(`^<details><summary>([^<>]*)</summary>$`)
	fenceOpenRE  = regexp.MustCompile("^(`{3,})" + fileFenceInfo + "( " + noEOL + ")?$")
	decimalRE    = lazyre.New(`^[1-9][0-9]{0,8}$`)
)

// PartMarker returns the first line of continuation part index of the
// record whose id is recordID.
func PartMarker(recordID string, index int) string {
	return "<!-- the-loop:handoff-part record=" + recordID + " index=" + strconv.Itoa(index) + " -->"
}

// recordID names a record by its key block: the first 16 hex digits of the
// SHA-256 of the block's lines (without the fences) joined by LF.
func recordID(keyLines []string) string {
	sum := sha256.Sum256([]byte(strings.Join(keyLines, "\n")))
	return hex.EncodeToString(sum[:])[:recordIDLen]
}

// fenceFor returns a backtick fence longer than any backtick run in body,
// and at least three long, so the body can never close it.
func fenceFor(body string) string {
	longest, run := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// isClosingFence reports whether line closes a fence of length n under
// CommonMark's rule: up to three spaces, at least n backticks, then only
// spaces or tabs. Applying the renderer's rule keeps what GitHub shows and
// what the parser reads the same.
func isClosingFence(line string, n int) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] == '`' {
		j++
	}
	if j-i < n {
		return false
	}
	return strings.Trim(line[j:], " \t") == ""
}

// isSelfTrailer reports the lines MarkSelfAuthored appends to a comment.
func isSelfTrailer(line string) bool {
	return line == integrations.SelfAttribution || line == integrations.SelfMarker
}
