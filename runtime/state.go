package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// StateFile is the portable record written beside the artifacts.
const StateFile = "work-item-state.json"

// LegacyStateFile is the earlier implementation's portable record name.
const LegacyStateFile = "graph-state.json"

// State is a work item's graph state. It is a cache: check --recompute
// derives every verdict from the artifacts and verified decisions alone.
type State struct {
	Version     int                    `json:"version"`
	WorkItem    string                 `json:"workItem"`
	Ref         string                 `json:"ref,omitempty"`
	Loop        string                 `json:"loop"`
	CurrentNode string                 `json:"currentNode"`
	Nodes       map[string]*NodeRecord `json:"nodes"`
	// Decisions holds recorded human decisions keyed by node (phase
	// selection, goal, gate outcomes), each signed.
	Decisions   map[string]*Decision   `json:"decisions"`
	Forced      []*Decision            `json:"forced"`
	Parked      *Parked                `json:"parked"`
	Session     map[string]any         `json:"session"`
	Completions map[string]*Completion `json:"completions"`
	Skips       map[string]*Decision   `json:"skips"`
	OptIns      map[string]*Decision   `json:"optIns"`
	Surface     string                 `json:"surface"`
	// Escalation records why the item was parked at escalated.
	Escalation *Escalation `json:"escalation,omitempty"`
	// EntryPending names the current node while its entry chain has not
	// run: left to a runtime holding the ticket integration (a launched
	// session's claim entered it), or not yet run, or cut short by the
	// death of the process that entered it; "" once it ran.
	EntryPending string `json:"entryPending,omitempty"`
	// Control is an authorized person's pause or stop, read from the ticket:
	// while it is set the item is held (see Held).
	Control *Control `json:"control,omitempty"`
	// CriticRuns are the signed receipts of the critic rounds the loop ran
	// for the item, oldest first (see RecordCriticRun).
	CriticRuns []*Decision `json:"criticRuns,omitempty"`
	// TestRuns are the signed receipts of the latest run of the repository's
	// commands by verify-tests, keyed by node.
	TestRuns map[string]*Decision `json:"testRuns,omitempty"`
	// Reviews are the signed receipts of the review nodes' stops, keyed by
	// node: the policy each stopped under.
	Reviews map[string]*Decision `json:"reviews,omitempty"`
	// Handoff is the accepted handoff record, frozen at start.
	Handoff           *HandoffState `json:"handoff,omitempty"`
	HandoffDemoted    []Demotion    `json:"handoffDemoted,omitempty"`
	ClaudeArtifactURL string        `json:"claudeArtifactUrl,omitempty"`
	// Dependencies is what the poller last read of the item's blockers
	// (nil: never read); the await-blockers hook holds the item on it.
	Dependencies *Dependencies `json:"dependencies,omitempty"`
	// Repos is the signed declaration of the repositories the item needs
	// code in (`the-loop graph repos`); nil when none was made.
	Repos *Decision `json:"repos,omitempty"`
	// PullRequests are the pull requests linked to the item.
	PullRequests []*PullRequestLink `json:"pullRequests,omitempty"`
	// PullAsks are pull requests a launched session asked for, which the
	// poller opens (a session's server holds no code host integration).
	PullAsks []*PullAsk `json:"pullAsks,omitempty"`
	// ReadyToShip holds, per node, what the ready-to-ship hook read from
	// GitHub when it last passed there (signed): check reads it, since it
	// reads no network.
	ReadyToShip map[string]*Decision `json:"readyToShip,omitempty"`
	// CommentMarks holds, per comment stream (CommentStream), the highest
	// comment id an evaluation of the item was handed: a visit begins above
	// them (see Visit).
	CommentMarks map[string]int64 `json:"commentMarks,omitempty"`
	// FixRounds are the times the loop sent a pull request's work back for
	// what it read on GitHub (failing checks, unanswered review threads, a
	// review asking for changes), oldest first: the next session's brief,
	// and the count ci.maxFixAttempts bounds.
	FixRounds []*FixRound `json:"fixRounds,omitempty"`
}

// NodeRecord is one node's bookkeeping.
type NodeRecord struct {
	// Attempts counts failed evaluations of this node.
	Attempts  int    `json:"attempts"`
	Entries   int    `json:"entries,omitempty"`
	Outcome   string `json:"outcome"`
	EnteredAt string `json:"enteredAt"`
	// LastEnteredAt is the start of the current visit.
	LastEnteredAt string `json:"lastEnteredAt,omitempty"`
	ExitedAt      string `json:"exitedAt"`
	LastBlock     string `json:"lastBlock"`
	// LastInputs fingerprints what the last blocked evaluation read
	// (artifacts, decisions, comments): an advance that finds the same
	// inputs and the same block spends no attempt.
	LastInputs string `json:"lastInputs,omitempty"`
	Forced     bool   `json:"forced"`
	// Visit bounds the comments the current visit reads (nil in a record
	// an earlier release wrote: that visit reads by time).
	Visit *Visit `json:"visit,omitempty"`
	// RouteBacks counts the times this human gate sent the work back to an
	// earlier node; past gates.maxRouteBacks the item escalates instead.
	RouteBacks int `json:"routeBacks,omitempty"`
}

// Decision is a recorded human or operator act with its provenance and an
// HMAC signature over its canonical JSON (Signature excluded).
type Decision struct {
	// WorkItem and Loop bind the signature to one item's walk: a signed
	// decision copied into another item or loop no longer verifies.
	WorkItem string `json:"workItem,omitempty"`
	Loop     string `json:"loop,omitempty"`
	// Repository binds it to where the item's ticket lives
	// (HOST/OWNER/REPO on GitHub, the Jira site): a decision copied into
	// another repository's item no longer counts (see bindingFault).
	Repository string         `json:"repository,omitempty"`
	Node       string         `json:"node"`
	Kind       string         `json:"kind"`
	Outcome    string         `json:"outcome,omitempty"`
	Via        string         `json:"via"`
	Token      string         `json:"token,omitempty"`
	By         string         `json:"by"`
	Reason     string         `json:"reason,omitempty"`
	CommentURL string         `json:"commentUrl,omitempty"`
	At         string         `json:"at"`
	Data       map[string]any `json:"data,omitempty"`
	Signature  string         `json:"signature,omitempty"`
}

// Outcomes of a human gate's approval decision.
const (
	OutcomeApproved             = "approved"
	OutcomeApprovedWithComments = "approved-with-comments"
	OutcomeChangesRequested     = "changes-requested"
)

// Decision kinds.
const (
	KindSelection = "phase-selection"
	KindGate      = "gate"
	KindGoal      = "goal"
	KindBrief     = "review-brief"
	KindSkip      = "skip"
	KindOptIn     = "opt-in"
	KindForce     = "force"
	// KindHandoffImport records what import-handoff verified and locked.
	KindHandoffImport = "handoff-import"
)

// Parked records why the item waits.
type Parked struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
	Since  string `json:"since"`
}

// Completion is a completion claim ledger entry.
type Completion struct {
	At string `json:"at"`
	By string `json:"by"`
}

// Escalation says why the walk stopped at escalated.
type Escalation struct {
	From   string `json:"from"`
	Reason string `json:"reason"`
	At     string `json:"at"`
}

// HandoffState is the accepted handoff, frozen when the walk starts.
type HandoffState struct {
	Record json.RawMessage `json:"record"`
	// Author is the person the record is attributed to: its comment's
	// author, or the authorized person the loop posted it for.
	Author string `json:"author"`
	// CommentAuthor is the record comment's author as the API reports it
	// (the loop's own login for a record it posted).
	CommentAuthor string `json:"commentAuthor,omitempty"`
	CommentURL    string `json:"commentUrl"`
	RecordedAt    string `json:"recordedAt"`
}

// Demotion records an import-handoff un-skip.
type Demotion struct {
	Artifact string `json:"artifact"`
	Node     string `json:"node"`
	Reason   string `json:"reason"`
	At       string `json:"at"`
}

// NewState returns a fresh state for id.
func NewState(id string) *State {
	s := &State{Version: 1, WorkItem: id}
	s.normalize()
	return s
}

func (s *State) normalize() {
	if s.Version == 0 {
		s.Version = 1
	}
	if s.Nodes == nil {
		s.Nodes = map[string]*NodeRecord{}
	}
	for k, v := range s.Nodes {
		if v == nil {
			delete(s.Nodes, k)
		}
	}
	if s.Decisions == nil {
		s.Decisions = map[string]*Decision{}
	}
	if s.Completions == nil {
		s.Completions = map[string]*Completion{}
	}
	if s.Skips == nil {
		s.Skips = map[string]*Decision{}
	}
	if s.OptIns == nil {
		s.OptIns = map[string]*Decision{}
	}
	if s.Forced == nil {
		s.Forced = []*Decision{}
	}
	s.CriticRuns = slices.DeleteFunc(s.CriticRuns, func(d *Decision) bool { return d == nil })
	for _, m := range []map[string]*Decision{s.TestRuns, s.Reviews} {
		for k, v := range m {
			if v == nil {
				delete(m, k)
			}
		}
	}
	for _, m := range []map[string]*Decision{s.Decisions, s.Skips, s.OptIns, s.ReadyToShip} {
		for k, v := range m {
			if v == nil {
				delete(m, k)
				continue
			}
			if v.Node == "" {
				v.Node = k
			}
		}
	}
	s.PullRequests = slices.DeleteFunc(s.PullRequests, func(l *PullRequestLink) bool { return l == nil })
	s.PullAsks = slices.DeleteFunc(s.PullAsks, func(a *PullAsk) bool { return a == nil })
}

// AllDecisions lists every recorded decision of s in a stable order: the
// gate decisions, the declared skips, the opt-ins and the ready-to-ship
// records, each by node, then the repository declaration, then the forced
// transitions in the order they happened, then the receipts of the loop's
// own runs (critic rounds, then test runs and review stops by node).
func (s *State) AllDecisions() []*Decision {
	var out []*Decision
	for _, m := range []map[string]*Decision{s.Decisions, s.Skips, s.OptIns, s.ReadyToShip} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, m[k])
		}
	}
	if s.Repos != nil {
		out = append(out, s.Repos)
	}
	out = append(out, s.Forced...)
	out = append(out, s.CriticRuns...)
	for _, m := range []map[string]*Decision{s.TestRuns, s.Reviews} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, m[k])
		}
	}
	return out
}

// Record returns the node's record, creating it.
func (s *State) Record(node string) *NodeRecord {
	r, ok := s.Nodes[node]
	if !ok {
		r = &NodeRecord{}
		s.Nodes[node] = r
	}
	return r
}

// Entered reports whether node was ever entered (or routed around).
func (s *State) Entered(node string) bool {
	r, ok := s.Nodes[node]
	return ok && r.EnteredAt != ""
}

// Clone deep-copies the state through JSON.
func (s *State) Clone() *State {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("clone state: %v", err))
	}
	c := &State{}
	if err := json.Unmarshal(b, c); err != nil {
		panic(fmt.Sprintf("clone state: %v", err))
	}
	c.normalize()
	return c
}

// ParseState decodes a portable record. The legacy layout (decisions as
// plain maps, skips without kind) decodes into the same fields.
func ParseState(data []byte, id string) (*State, error) {
	s := &State{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if s.WorkItem == "" {
		s.WorkItem = id
	}
	s.normalize()
	return s, nil
}

// Marshal encodes the state as indented UTF-8 JSON with a trailing newline.
func (s *State) Marshal() ([]byte, error) {
	return MarshalJSON(s)
}

// MarshalJSON encodes v with two-space indentation, no HTML escaping and a
// trailing newline: the format of every JSON document the loop writes.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ErrCorruptState marks a portable record that exists but cannot be decoded.
var ErrCorruptState = errors.New("portable record is corrupt")

// WriteFileAtomic writes data to path (atomicfile.Write), creating its
// directory first.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return atomicfile.Write(path, data, perm)
}

// Now returns the current UTC time formatted for records.
var Now = func() string { return time.Now().UTC().Format(time.RFC3339) }
