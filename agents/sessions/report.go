package sessions

import (
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/store"
)

// Want is one work item standing on an agent node: the desired state the
// poller hands the supervisor each cycle.
type Want struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	Node     string `json:"node"`
	// Prompt is the node's assignment.
	Prompt string `json:"-"`
	// Harness names an entry of the `harnesses:` config.
	Harness string `json:"harness"`
	// Model and Effort are the item's frozen checklist choice ("" = the
	// harness's defaults).
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
	// Workdir is the item's working tree.
	Workdir string `json:"workdir"`
	// Order is the arming order: lower launches first when sessions.max
	// is reached (e.g. the seq of the item's arming event).
	Order int64 `json:"order"`
	// Visit numbers the item's visits to Node (how many times it was
	// entered). A new visit — a gate sending the item back, an operator's
	// force — starts the relaunch count again and lifts a hold scoped to
	// the node, such as an escalation's.
	Visit int `json:"visit"`
	// PR and PRRepo name the pull request whose loop Node belongs to (0:
	// the item's own loop). Own gives that pull request a session of its
	// own, working in Workdir (its own tree); without Own the item's one
	// session works it. Repo stays the item's repository either way: the
	// session's server serves the item there.
	PR     int    `json:"pr,omitempty"`
	PRRepo string `json:"prRepo,omitempty"`
	Own    bool   `json:"own,omitempty"`
	// Writable and ReadOnly are what a confined session may reach beyond
	// Workdir, its home and temp directory: the git directories its tree
	// commits into (Writable) and the repository they belong to (ReadOnly).
	Writable []string `json:"writable,omitempty"`
	ReadOnly []string `json:"readOnly,omitempty"`
}

// itemID keys the supervisor's per-session state: a work item of a
// repository and, for a pull request's session of its own, that pull
// request (pr 0: the item's one session).
type itemID struct {
	repo, item, prRepo string
	pr                 int
}

func (w Want) key() itemID {
	if w.Own && w.PR > 0 {
		return itemID{repo: w.Repo, item: w.WorkItem, prRepo: strings.ToLower(w.PRRepo), pr: w.PR}
	}
	return itemKey(w.Repo, w.WorkItem)
}

// work names what the want asks a session to do: the node, qualified by
// the pull request whose loop it belongs to.
func (w Want) work() string { return workName(w.PRRepo, w.PR, w.Node) }

func workName(prRepo string, pr int, node string) string {
	if pr <= 0 {
		return node
	}
	return fmt.Sprintf("%s#%d %s", strings.ToLower(prRepo), pr, node)
}

// itemKey keys an item's own session; spendKey its budget, which one
// figure covers for the item and every pull request of it.
func itemKey(repo, item string) itemID { return itemID{repo: repo, item: item} }

// Status is one session as the supervisor sees it.
type Status struct {
	Session    string        `json:"session"`
	Repo       string        `json:"repo"`
	WorkItem   string        `json:"workItem"`
	Node       string        `json:"node"`
	PR         int           `json:"pr,omitempty"`
	PRRepo     string        `json:"prRepo,omitempty"`
	Own        bool          `json:"own,omitempty"`
	Harness    string        `json:"harness"`
	Runner     string        `json:"runner"`
	PID        int           `json:"pid"`
	Attempt    int           `json:"attempt"`
	StartedAt  time.Time     `json:"startedAt"`
	State      string        `json:"state"`
	Reason     string        `json:"reason,omitempty"`
	ExitStatus string        `json:"exitStatus,omitempty"`
	Usage      harness.Usage `json:"usage"`
	Transcript string        `json:"transcript"`
	Attach     string        `json:"attach,omitempty"`
}

// Queued is a wanted session waiting for a free slot under sessions.max.
type Queued struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	Node     string `json:"node"`
	PR       int    `json:"pr,omitempty"`
	PRRepo   string `json:"prRepo,omitempty"`
	Own      bool   `json:"own,omitempty"`
	// Position is 1 for the next to launch.
	Position int `json:"position"`
}

// Waiting is an item in its relaunch backoff.
type Waiting struct {
	Repo     string    `json:"repo"`
	WorkItem string    `json:"workItem"`
	Node     string    `json:"node"`
	PR       int       `json:"pr,omitempty"`
	PRRepo   string    `json:"prRepo,omitempty"`
	Own      bool      `json:"own,omitempty"`
	Until    time.Time `json:"until"`
	Launches int       `json:"launches"`
	LastExit string    `json:"lastExit"`
}

// Held is an item the supervisor refuses to launch for, and why.
type Held struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	Node     string `json:"node"`
	PR       int    `json:"pr,omitempty"`
	PRRepo   string `json:"prRepo,omitempty"`
	Own      bool   `json:"own,omitempty"`
	Reason   string `json:"reason"`
	// Host is set when the host holds the item, not its own figures: it
	// cannot confine a session (a fault the operator fixes).
	Host bool `json:"host,omitempty"`
}

// Figures are what sessions used: figures, the cost of those whose cost is
// known (UnknownCost counts the others), and run time.
type Figures struct {
	Turns       int     `json:"turns"`
	Tokens      int64   `json:"tokens"`
	CostUSD     float64 `json:"costUsd"`
	UnknownCost int     `json:"unknownCost,omitempty"`
	WallSeconds float64 `json:"wallSeconds"`
}

// plus adds one session that used u over wall.
func (f Figures) plus(u harness.Usage, wall time.Duration) Figures {
	f.Turns, f.Tokens, f.WallSeconds = f.Turns+u.Turns, f.Tokens+u.Tokens(), f.WallSeconds+wall.Seconds()
	if u.HasCost() {
		f.CostUSD += u.CostUSD
	} else {
		f.UnknownCost++
	}
	return f
}

// add sums two sets of figures.
func (f Figures) add(g Figures) Figures {
	return Figures{Turns: f.Turns + g.Turns, Tokens: f.Tokens + g.Tokens, CostUSD: f.CostUSD + g.CostUSD,
		UnknownCost: f.UnknownCost + g.UnknownCost, WallSeconds: f.WallSeconds + g.WallSeconds}
}

// figuresOf reads the store's sum.
func figuresOf(sp store.Spend) Figures {
	return Figures{Turns: sp.Turns, Tokens: sp.Tokens, CostUSD: sp.CostUSD, UnknownCost: sp.UnknownCost, WallSeconds: sp.WallSeconds}
}

// Escalation is an item that needs a human: its sessions keep ending with
// the node unmet, it ran out of budget, or it cannot be launched at all.
type Escalation struct {
	Repo     string  `json:"repo"`
	WorkItem string  `json:"workItem"`
	Node     string  `json:"node"`
	PR       int     `json:"pr,omitempty"`
	PRRepo   string  `json:"prRepo,omitempty"`
	Own      bool    `json:"own,omitempty"`
	Reason   string  `json:"reason"`
	Launches int     `json:"launches"`
	LastExit string  `json:"lastExit,omitempty"`
	Spent    Figures `json:"spent"`
	Budget   Budget  `json:"budget"`
}

// LaunchFailure is a wanted session that could not be started: its
// runner refused it, or its launch could not be recorded. The key is
// relaunched after its backoff, and escalates once its relaunches are
// spent.
type LaunchFailure struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	Node     string `json:"node"`
	PR       int    `json:"pr,omitempty"`
	PRRepo   string `json:"prRepo,omitempty"`
	Own      bool   `json:"own,omitempty"`
	Error    string `json:"error"`
}

// Report is what one cycle did and saw.
type Report struct {
	Started []Status `json:"started,omitempty"`
	// LaunchFailed are the sessions this cycle could not start.
	LaunchFailed []LaunchFailure `json:"launchFailed,omitempty"`
	Exited       []Status        `json:"exited,omitempty"`
	Live         []Status        `json:"live,omitempty"`
	Queued       []Queued        `json:"queued,omitempty"`
	Waiting      []Waiting       `json:"waiting,omitempty"`
	Held         []Held          `json:"held,omitempty"`
	Escalations  []Escalation    `json:"escalations,omitempty"`
}
