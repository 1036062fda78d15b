package integrations

import "context"

// OpReadRelations is implemented through RelationReader.
const OpReadRelations Op = "read-relations"

// ItemState is a ticket's state as dependencies read it.
type ItemState string

// The states a dependency can be in.
const (
	// StateOpen: the ticket is open (Jira: its status is not in the Done
	// category).
	StateOpen ItemState = "open"
	// StateDone: closed as completed (GitHub state_reason "completed" or
	// none; Jira Done category with a done resolution or none).
	StateDone ItemState = "done"
	// StateNotDone: closed any other way (not planned, duplicate, won't do).
	StateNotDone ItemState = "not-done"
	// StateUnknown: the ticket could not be read (missing, no permission,
	// no provider for its tracker). It never counts as finished.
	StateUnknown ItemState = "unknown"
)

// Finished reports whether s releases the items it blocks.
func (s ItemState) Finished() bool { return s == StateDone }

// Related is one ticket as a relation names it.
type Related struct {
	Ref   Ref
	Title string
	State ItemState
	// Reason is the tracker's word for the state, for display: a GitHub
	// state_reason ("not_planned") or a Jira status or resolution ("Won't Do").
	Reason string
	// Via says how the relation was read: "sub-issue", "parent",
	// "dependency", "subtask", "link:<type name>", "remote-link",
	// "task-list", "body".
	Via string
}

// Relations is what one ticket says about its neighbours. Every list holds
// each ref at most once.
type Relations struct {
	// Item is the ticket itself (Via is empty).
	Item Related
	// Body is the ticket's description, for reference scanning.
	Body string
	// Parent is the ticket this one is a sub-issue or child of.
	Parent *Related
	// Children are the ticket's sub-issues, subtasks or child issues.
	Children []Related
	// BlockedBy are the tickets this one waits for.
	BlockedBy []Related
	// Blocking are the tickets that wait for this one.
	Blocking []Related
	// Mentions are relations whose far end the tracker names only as text
	// (a Jira remote link's URL); the caller resolves them.
	Mentions []Mention
	// Warnings name relationship features the tracker lacks; each was read
	// as "none".
	Warnings []string
}

// RelationKind says which way a mention points.
type RelationKind string

// The relation kinds a mention can carry.
const (
	// RelBlockedBy: the ticket waits for the mentioned one.
	RelBlockedBy RelationKind = "blocked-by"
	// RelBlocking: the mentioned ticket waits for this one.
	RelBlocking RelationKind = "blocking"
	// RelChild: the mentioned ticket is a child of this one.
	RelChild RelationKind = "child"
)

// Mention is a relation to a ticket named as text: a URL or a qualified
// reference such as github:OWNER/REPO#12 or jira:PROJ-12.
type Mention struct {
	Text string
	Kind RelationKind
	Via  string
}

// RelationReader is implemented by providers that can read a ticket's
// parent, children and dependencies (OpReadRelations).
type RelationReader interface {
	// ReadRelations reads ref and its relations. A relationship feature the
	// tracker does not offer (HTTP 404 on its endpoint) is read as none and
	// named in Warnings; any other failure is an error.
	ReadRelations(ctx context.Context, ref Ref) (Relations, error)
}

// RelationsRead is one ticket's answer in a batched read.
type RelationsRead struct {
	Relations Relations
	Err       error
}

// RelationBatchReader is implemented by providers that can read the
// relations of many tickets in a few requests. Each answer means exactly
// what ReadRelations would have answered for that ref.
type RelationBatchReader interface {
	RelationReader
	// ReadRelationsBatch reads every ref; the answers are in refs' order.
	ReadRelationsBatch(ctx context.Context, refs []Ref) RelationsBatch
}

// RelationsBatch is the answer of a batched read.
type RelationsBatch struct {
	// Reads are the answers, in the order of the refs asked for.
	Reads []RelationsRead
	// Fallback says why the tickets were read one by one instead ("" when
	// they were read in batches).
	Fallback string
}
