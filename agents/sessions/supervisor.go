package sessions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sandbox"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/store"
)

// Recorder is the part of the store the supervisor writes to.
type Recorder interface {
	StartSession(ctx context.Context, sess store.Session, evs ...store.Event) error
	FinishSession(ctx context.Context, sess store.Session, evs ...store.Event) error
	UpdateSessionUsage(ctx context.Context, id string, u store.SessionUsage) error
	ItemSpend(ctx context.Context, repo, item string) (store.Spend, error)
	RepoSpend(ctx context.Context, repo string, since time.Time) (store.Spend, error)
	ListSessions(ctx context.Context, f store.SessionFilter) ([]store.Session, error)
	AppendEvents(ctx context.Context, repo, id string, evs []store.Event) error
}

// Deps are the supervisor's collaborators, wired in one place.
type Deps struct {
	// Store records sessions and their events (a *store.Store).
	Store Recorder
	// Harnesses is the `harnesses:` config.
	Harnesses map[string]harness.Config
	// Serve is the argv of the-loop's MCP server for the sessions' MCP
	// config; ServeEnv its environment there (never a secret).
	Serve    []string
	ServeEnv map[string]string
	// Sensitive names variables the config says hold secrets.
	Sensitive []string
	// StateDir holds each session's files: StateDir/sessions/<id>/
	// (prompt.md, mcp.json, transcript.jsonl, stderr.log).
	StateDir string
	// Runner starts sessions (nil: by Config.Runner, a ProcessRunner or a
	// TmuxRunner under StateDir/tmux).
	Runner Runner
	// Lookup reads the poller's environment (nil = os.LookupEnv); Environ
	// lists it for redaction (nil = os.Environ()).
	Lookup  func(string) (string, bool)
	Environ []string
	// Progress reads what a session left in its working tree (nil: the
	// supervisor cannot tell, and a session that changed nothing is
	// relaunched like any other).
	Progress Progress
	// Confiner confines every session (nil: sessions run unconfined, as
	// under sessions.confinement: none). When it refuses, no session is
	// launched and the items say why.
	Confiner *sandbox.Confiner
	// Gateway hosts each confined session's socket to the poller (required
	// when the Confiner confines); ConfinedServe is the argv of the
	// sessions' server inside the sandbox, which forwards over that socket
	// (e.g. [the-loop, serve]: no config, no store).
	Gateway       Gateway
	ConfinedServe []string
	// OwnDirs are the directories the poller keeps for sessions (the
	// state directory, the trees' root): under the account layer, the
	// directories between one of them and a session's tree are opened for
	// search (never for listing), so the account reaches its tree.
	OwnDirs []string
	// Now is the clock (nil = time.Now); NewID mints session ids.
	Now   func() time.Time
	NewID func() string
	Log   *slog.Logger
}

// Progress reads a session's working tree (workspace.Progress).
type Progress interface {
	// Head is the commit the tree in dir stands on.
	Head(ctx context.Context, dir string) (string, error)
	// AgentCommits counts the commits since since in dir that are not the
	// loop's own.
	AgentCommits(ctx context.Context, dir, since string) (int, error)
}

// Supervisor keeps the live sessions in line with the desired state. Its
// methods are safe for concurrent use.
type Supervisor struct {
	cfg    Config
	d      Deps
	redact []string

	announce sync.Once // the confinement, said at the first cycle

	mu      sync.Mutex
	live    map[itemID]*live      // by key
	items   map[itemID]*itemState // by key
	spend   map[itemID]*Figures   // by item: one budget for it and its pull requests
	changed chan struct{}
}

// itemState is what the supervisor remembers about one key: a work item's
// own session, or a pull request's session of its own.
type itemState struct {
	work     string    // the (qualified) node launches are counted for
	visit    int       // the visit to work they are counted for (Want.Visit)
	launches int       // launches for work
	nextAt   time.Time // no relaunch before
	lastExit string
	hold     string // why launches are refused ("" = none)
	holdNode bool   // the hold ends when the key moves to other work
	notified bool   // the hold's refusal event was appended
	// idle counts the sessions in a row that ended on work with no commit;
	// note is what the next launch's prompt is told about the last one.
	idle     int
	note     string
	repoHeld bool // the repository's budget holds the key (its event was appended)
	// confRefused: the refusal for want of confinement was appended.
	confRefused bool
}

// New returns a supervisor for cfg (defaults applied).
func New(cfg Config, d Deps) (*Supervisor, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate("sessions"); err != nil {
		return nil, err
	}
	if err := config.ValidateHarnesses(d.Harnesses); err != nil {
		return nil, err
	}
	switch {
	case d.Store == nil:
		return nil, errors.New("sessions: a store is required")
	case d.StateDir == "" || !filepath.IsAbs(d.StateDir):
		return nil, fmt.Errorf("sessions: state directory %q must be an absolute path", d.StateDir)
	case len(d.Serve) == 0:
		return nil, errors.New("sessions: Serve must name the the-loop program")
	case d.Confiner.Active() && (d.Gateway == nil || len(d.ConfinedServe) == 0):
		return nil, errors.New("sessions: confined sessions need a Gateway and the ConfinedServe argv")
	}
	if err := os.MkdirAll(filepath.Join(d.StateDir, "sessions"), 0o700); err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	if d.Runner == nil {
		d.Runner = ProcessRunner{}
		if cfg.Runner == RunnerTmux {
			d.Runner = &TmuxRunner{Dir: filepath.Join(d.StateDir, "tmux")}
		}
	}
	if d.Lookup == nil {
		d.Lookup = os.LookupEnv
	}
	if d.Environ == nil {
		d.Environ = os.Environ()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.NewID == nil {
		d.NewID = newID
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &Supervisor{cfg: cfg, d: d, redact: proc.SecretValuesOf(d.Environ, d.Sensitive...),
		live: map[itemID]*live{}, items: map[itemID]*itemState{}, spend: map[itemID]*Figures{}, changed: make(chan struct{}, 1)}, nil
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// Changed is signalled whenever a session ends, so the caller can run a
// cycle at once instead of waiting for the next poll.
func (s *Supervisor) Changed() <-chan struct{} { return s.changed }

// Cycle brings the sessions in line with wants: it records sessions that
// ended, stops the ones no longer wanted or past a limit, and launches
// what is missing. Problems with single items are in the report or the
// returned error; they never stop the cycle.
func (s *Supervisor) Cycle(ctx context.Context, wants []Want) (Report, error) {
	s.announce.Do(s.sayConfinement)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &cycle{s: s, ctx: ctx, now: s.d.Now()}
	c.index(wants)
	c.reap()
	c.police()
	c.launch()
	c.rep.Live = s.statuses()
	return c.rep, errors.Join(c.errs...)
}

// cycle is the state of one Cycle call.
type cycle struct {
	s     *Supervisor
	ctx   context.Context
	now   time.Time
	wants map[itemID]Want
	order []Want
	rep   Report
	errs  []error
	// repoSpent caches each repository's spend in its budget's window.
	repoSpent map[string]Figures
}

func (c *cycle) index(wants []Want) {
	c.wants = make(map[itemID]Want, len(wants))
	c.order = make([]Want, 0, len(wants))
	for _, w := range wants {
		if err := checkWant(w); err != nil {
			c.errs = append(c.errs, err)
			continue
		}
		if prev, dup := c.wants[w.key()]; dup {
			c.errs = append(c.errs, fmt.Errorf("sessions: %s %s is wanted on both %s and %s; one session per item (and per pull request of its own), keeping %s",
				w.Repo, w.WorkItem, prev.work(), w.work(), prev.work()))
			continue
		}
		c.wants[w.key()] = w
		c.order = append(c.order, w)
	}
	sort.SliceStable(c.order, func(i, j int) bool {
		a, b := c.order[i], c.order[j]
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		if a.Repo != b.Repo {
			return a.Repo < b.Repo
		}
		return a.WorkItem < b.WorkItem
	})
}

func checkWant(w Want) error {
	switch {
	case w.Repo == "" || w.WorkItem == "" || w.Node == "":
		return fmt.Errorf("sessions: a wanted session needs Repo, WorkItem and Node (got %q %q %q)", w.Repo, w.WorkItem, w.Node)
	case w.Harness == "":
		return fmt.Errorf("sessions: %s %s: no harness named", w.Repo, w.WorkItem)
	case !filepath.IsAbs(w.Workdir):
		return fmt.Errorf("sessions: %s %s: Workdir %q must be an absolute path", w.Repo, w.WorkItem, w.Workdir)
	case w.PR < 0 || (w.PR == 0) != (w.PRRepo == ""):
		return fmt.Errorf("sessions: %s %s: PR %d and PRRepo %q must be set together", w.Repo, w.WorkItem, w.PR, w.PRRepo)
	}
	return nil
}

// state returns the remembered state of key.
func (s *Supervisor) state(key itemID) *itemState {
	it := s.items[key]
	if it == nil {
		it = &itemState{}
		s.items[key] = it
	}
	return it
}

// spent returns what item's sessions spent, its pull requests' included,
// loading the earlier sessions' figures on first sight.
func (c *cycle) spent(repo, item string) (*Figures, error) {
	key := itemKey(repo, item)
	if f := c.s.spend[key]; f != nil {
		return f, nil
	}
	sp, err := c.s.d.Store.ItemSpend(c.ctx, repo, item)
	if err != nil {
		return nil, fmt.Errorf("sessions: read what %s %s spent: %w", repo, item, err)
	}
	f := &Figures{}
	*f = figuresOf(sp)
	c.s.spend[key] = f
	return f, nil
}

// recWork is what a recorded session works, as Want.work names it.
func recWork(rec store.Session) string { return workName(rec.PRRepo, rec.PR, rec.Node) }

// event builds a store event with a JSON payload.
func event(name, node string, data map[string]any) store.Event {
	b, _ := json.Marshal(data)
	return store.Event{Name: name, Node: node, Data: b}
}

// append records events outside a session transaction.
func (c *cycle) append(repo, item string, evs ...store.Event) {
	if err := c.s.d.Store.AppendEvents(c.ctx, repo, item, evs); err != nil {
		c.errs = append(c.errs, fmt.Errorf("sessions: record events for %s %s: %w", repo, item, err))
	}
}

// statuses lists the live sessions, oldest first.
func (s *Supervisor) statuses() []Status {
	out := make([]Status, 0, len(s.live))
	for _, l := range s.live {
		out = append(out, l.status())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].StartedAt.Equal(out[j].StartedAt) {
			return out[i].StartedAt.Before(out[j].StartedAt)
		}
		return out[i].Session < out[j].Session
	})
	return out
}

// Live returns the live sessions.
func (s *Supervisor) Live() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statuses()
}
