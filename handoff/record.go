// Package handoff reads and writes the handoff record: the signed-by-author,
// hashed statement that a conversation already settled part of a work item's
// spec chain. It owns the wire format posted as ticket comments, the stage
// table that decides where a handed-off walk may enter, branch-name checks,
// and the verify-then-write import of the carried files.
package handoff

import "slices"

// Version is the only record version this package reads or writes.
const Version = 1

// MaxCommentChars is the largest comment, in characters (Unicode code
// points), that Render produces.
const MaxCommentChars = 65536

// MirrorLabel marks a Jira copy of a GitHub issue; a mirror is never armed.
const MirrorLabel = "the-loop-mirror"

// BranchPrefix is the prefix every handoff spec branch must carry.
const BranchPrefix = "the-loop/"

// Artifact names, the closed set a record may carry.
const (
	Brainstorm   = "brainstorm.md"
	Requirements = "requirements.md"
	Bugfix       = "bugfix.md"
	DesignDoc    = "design.md"
	TestingPlan  = "testing-plan.md"
)

// Stages a record may declare.
const (
	StageExploring           = "exploring"
	StageBrainstormSettled   = "brainstorm-settled"
	StageRequirementsSettled = "requirements-settled"
	StageDesignSettled       = "design-settled"
)

// Carriers: where the carried files travel.
const (
	CarriedByBranch   = "branch"
	CarriedByTicket   = "ticket"
	CarriedByArtifact = "artifact"
)

// Graph nodes a handoff may enter (the allowed set).
const (
	NodeBrainstorming        = "brainstorming"
	NodeBrainstormApproval   = "brainstorm-approval"
	NodeRequirementsApproval = "requirements-approval"
	NodeTestPlanning         = "test-planning"
	NodeDesignApproval       = "design-approval"
)

// Artifact is one carried file: its name from the closed set and the SHA-256
// of its bytes with LF line endings, as 64 lowercase hex digits. The JSON
// form carries the bare hex (no "sha256:" prefix); the wire form adds it.
type Artifact struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Record is a handoff record. Author and comment URL are deliberately absent:
// they come from the comment's API metadata (see Found), never from the text.
type Record struct {
	Version        int        `json:"version"`
	Stage          string     `json:"stage"`
	Enter          string     `json:"enter"`
	Artifacts      []Artifact `json:"artifacts"`
	CarriedBy      string     `json:"carriedBy"`
	Branch         string     `json:"branch,omitempty"`
	PullRequest    int        `json:"pullRequest,omitempty"`
	SpecArtifact   string     `json:"specArtifact,omitempty"`
	Source         string     `json:"source,omitempty"`
	ApprovedInChat []string   `json:"approvedInChat,omitempty"`
	Mirror         string     `json:"mirror,omitempty"`
	Confirmation   string     `json:"confirmation,omitempty"`
	// Files holds the carried bodies (name → text with LF line endings)
	// when CarriedBy is ticket; it is never part of the JSON form.
	Files map[string]string `json:"-"`
}

// HandoffRecord is an alias kept for readers who know the design's names.
type HandoffRecord = Record

// HandoffArtifact is an alias kept for readers who know the design's names.
type HandoffArtifact = Artifact

var chain = []string{Brainstorm, Requirements, Bugfix, DesignDoc, TestingPlan}

var producers = map[string]string{
	Brainstorm:   "brainstorming",
	Requirements: "requirements-definition",
	Bugfix:       "requirements-definition",
	DesignDoc:    "design",
	TestingPlan:  "test-planning",
}

var stages = []string{StageExploring, StageBrainstormSettled, StageRequirementsSettled, StageDesignSettled}

var allowedEntries = []string{NodeBrainstorming, NodeBrainstormApproval, NodeRequirementsApproval, NodeTestPlanning, NodeDesignApproval}

// ChainOrder returns the artifact names in spec-chain order. requirements.md
// and bugfix.md share a position: a record carries at most one of them.
func ChainOrder() []string { return slices.Clone(chain) }

// ProducerOf names the graph node that produces the artifact, or "" for a
// name outside the closed set.
func ProducerOf(name string) string { return producers[name] }

// IsArtifactName reports whether name is in the closed set.
func IsArtifactName(name string) bool { return slices.Contains(chain, name) }

// Stages returns the stages a record may declare, earliest first.
func Stages() []string { return slices.Clone(stages) }

// AllowedEntries returns the only nodes a record's enter may name.
func AllowedEntries() []string { return slices.Clone(allowedEntries) }

// chainIndex orders names; requirements.md and bugfix.md share index 1.
func chainIndex(name string) int {
	switch name {
	case Brainstorm:
		return 0
	case Requirements, Bugfix:
		return 1
	case DesignDoc:
		return 2
	case TestingPlan:
		return 3
	}
	return -1
}

// StageEntry returns the node a handed-off walk enters for stage, given the
// carried artifacts: exploring → brainstorming, brainstorm-settled →
// brainstorm-approval, requirements-settled → requirements-approval,
// design-settled → design-approval when testing-plan.md is carried, else
// test-planning.
func StageEntry(stage string, artifacts []Artifact) (string, error) {
	switch stage {
	case StageExploring:
		return NodeBrainstorming, nil
	case StageBrainstormSettled:
		return NodeBrainstormApproval, nil
	case StageRequirementsSettled:
		return NodeRequirementsApproval, nil
	case StageDesignSettled:
		for _, a := range artifacts {
			if a.Name == TestingPlan {
				return NodeDesignApproval, nil
			}
		}
		return NodeTestPlanning, nil
	}
	return "", rejectf(CodeUnknownStage, 0, "stage %q is not one of %v; use one of them", stage, stages)
}

// Furthest returns the carried artifact latest in chain order, or "".
func (r Record) Furthest() string {
	best, idx := "", -1
	for _, a := range r.Artifacts {
		if i := chainIndex(a.Name); i > idx {
			best, idx = a.Name, i
		}
	}
	return best
}

// Names returns the carried artifact names in record order.
func (r Record) Names() []string {
	out := make([]string, 0, len(r.Artifacts))
	for _, a := range r.Artifacts {
		out = append(out, a.Name)
	}
	return out
}

// Hash returns the recorded SHA-256 of name and whether it is carried.
func (r Record) Hash(name string) (string, bool) {
	for _, a := range r.Artifacts {
		if a.Name == name {
			return a.SHA256, true
		}
	}
	return "", false
}
