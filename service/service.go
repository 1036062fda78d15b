package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// Deps are what a Service is built from besides its config. New is the only
// constructor and nothing is set after it, so adding a dependency is one
// field here and one line where the CLI's factory fills it.
type Deps struct {
	// Store is the state database, opened on first use (nil: the default
	// path).
	Store *store.Handle
	// Providers returns the ticket integration of a system ("github",
	// "jira"); nil means none is configured.
	Providers func(system string) (integrations.Provider, error)
	// Notifier delivers the notify hooks' messages (Slack); nil means none.
	Notifier integrations.Notifier
	// Critics runs the configured critics (nil: a runner reading the
	// process environment, redacting the config's secrets).
	Critics *critic.Runner
	// Signer signs and verifies recorded decisions (nil: no key, so
	// decisions are unsigned and only committed public keys verify).
	Signer *runtime.Signer
	// Clock is the service's time source (nil: time.Now).
	Clock func() time.Time
	// Log receives operational messages (nil: slog.Default()).
	Log *slog.Logger
	// DefaultRepo is the repository a request that names none acts on
	// ("": the working directory).
	DefaultRepo string
	// AllowedRepos, when set, are the only repository roots (and the only
	// places handoff files are read from) a request may name: a remote MCP
	// caller cannot point the server at arbitrary paths on its host.
	AllowedRepos []string
	// Sessions launches and supervises the agent sessions of the poller
	// and `the-loop run` (nil: none are launched; the poller idles at
	// agent nodes).
	Sessions *sessions.Supervisor
	// Trees gives every polled work item its own working tree (nil: gates
	// are evaluated in the source's checkout and nothing is pushed).
	Trees *Trees
	// DeferEntry marks the server of a launched session: the nodes its
	// claims enter leave their entry chains (labels, review requests,
	// notifications) to the poller, which holds the ticket integration.
	DeferEntry bool
	// OS is the account and host this process runs as, recorded, signed,
	// with every operator act (zero: the process's own, runtime.CurrentOS).
	OS runtime.OSIdentity
	// Metrics records what the poller and the webhook feed do (nil:
	// nothing is recorded).
	Metrics *metrics.Metrics
	// Waker carries a webhook delivery's "evaluate this item now" to the
	// poller (nil: deliveries are recorded and wait for the sweep).
	Waker Waker
}

// Service is the core every CLI verb and MCP tool calls. It is safe for
// concurrent use; the MCP server shares one across calls.
type Service struct {
	cfg  *config.Config
	deps Deps
	// repoOpens counts the repository configs opened (tests count them
	// per poll cycle).
	repoOpens atomic.Int64
	// memo answers a repeated check of an unchanged item.
	memo checkMemo
}

// New returns the service over cfg (nil: the defaults) and deps, filling
// the defaults of the deps left zero.
func New(cfg *config.Config, deps Deps) *Service {
	if cfg == nil {
		cfg = config.Default()
	}
	if deps.Store == nil {
		deps.Store = store.NewHandle(cfg.Store.Path)
	}
	if deps.Signer == nil {
		deps.Signer = runtime.NewSigner(nil)
	}
	if deps.Clock == nil {
		deps.Clock = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	if deps.OS == (runtime.OSIdentity{}) {
		deps.OS = runtime.CurrentOS()
	}
	return &Service{cfg: cfg, deps: deps}
}

// Config is the operator config the service runs under.
func (s *Service) Config() *config.Config { return s.cfg }

// DefaultRepo is the repository a request that names none acts on ("":
// the working directory).
func (s *Service) DefaultRepo() string { return s.deps.DefaultRepo }

// DBPath is the state database in use.
func (s *Service) DBPath() string { return s.deps.Store.Path() }

// Close releases the store.
func (s *Service) Close() error { return s.deps.Store.Close() }

// OpenStore opens the state store now, so a long-running server reads and
// writes through one handle instead of opening the database per call.
func (s *Service) OpenStore(ctx context.Context) error {
	_, err := s.deps.Store.Writable(ctx)
	return err
}

// Store opens the state store now (read-write) and returns it: the HTTP
// transport keeps its sessions there, and a webhook wakes the poller
// through it (store.Waker).
func (s *Service) Store(ctx context.Context) (*store.Store, error) {
	return s.deps.Store.Writable(ctx)
}

// ErrNoIntegration marks an operation that needs a ticket integration on a
// service that has none for the system.
var ErrNoIntegration = errors.New("no ticket integration is configured")

// Provider returns the ticket integration of system as Deps.Providers
// builds it (its error as it is), or an error wrapping ErrNoIntegration
// when none is configured.
func (s *Service) Provider(system string) (integrations.Provider, error) {
	if s.deps.Providers == nil {
		return nil, fmt.Errorf("%s: %w", system, ErrNoIntegration)
	}
	p, err := s.deps.Providers(system)
	if err == nil && p == nil {
		err = fmt.Errorf("%s: %w", system, ErrNoIntegration)
	}
	return p, err
}

// provider is Provider for op, whose errors name op and the system.
func (s *Service) provider(op, system string) (integrations.Provider, error) {
	p, err := s.Provider(system)
	switch {
	case errors.Is(err, ErrNoIntegration):
		return nil, fmt.Errorf("%s on %s: %w", op, system, ErrNoIntegration)
	case err != nil:
		return nil, fmt.Errorf("the %s integration is not usable: %w", system, err)
	}
	return p, nil
}

func (s *Service) writableStore(ctx context.Context) (*store.Store, error) {
	return s.deps.Store.Writable(ctx)
}

func (s *Service) readStore(ctx context.Context) (*store.Store, func(), error) {
	return s.deps.Store.Reader(ctx)
}

func (s *Service) now() time.Time { return s.deps.Clock() }

func (s *Service) log() *slog.Logger { return s.deps.Log }

// tracker returns the provider for a state's ref system (nil when none).
func (s *Service) tracker(repo *repoconfig.Repo, st *runtime.State) integrations.Provider {
	if s.deps.Providers == nil {
		return nil
	}
	system := repo.Config.Ticketing.System
	if ref, err := runtime.ParseTicketRef(st.Ref); err == nil {
		system = ref.System
	}
	if system == "" {
		system = "github"
	}
	p, err := s.deps.Providers(system)
	if err != nil || p == nil {
		s.log().Debug("no ticket integration", "system", system, "err", err)
		return nil
	}
	return p
}

// codeHost is the provider of the pull requests (GitHub), nil when none is
// configured.
func (s *Service) codeHost() integrations.Provider {
	if s.deps.Providers == nil {
		return nil
	}
	p, err := s.deps.Providers("github")
	if err != nil || p == nil {
		return nil
	}
	return p
}

// originOf is OWNER/REPO of the repository the item is tracked in: the
// repository config's ticketing.github, else the item's GitHub ticket
// ("" when neither says).
func originOf(repo *repoconfig.Repo, st *runtime.State) string {
	if o := repo.OriginRepo(); o != "" && runtime.CheckRepo(o) == nil {
		return o
	}
	if ref, err := runtime.ParseTicketRef(st.Ref); err == nil && ref.System == "github" && ref.Owner != "" {
		if o := ref.Owner + "/" + ref.Repo; runtime.CheckRepo(o) == nil {
			return o
		}
	}
	return ""
}

// session bundles what one mutating operation on a work item needs.
type session struct {
	store *store.Store
	repo  *repoconfig.Repo
	rt    *runtime.Runtime
	state *runtime.State
	warns []string
}

// open resolves the repository, loads the item's state and builds the
// runtime for the loop the item walks (loop overrides a fresh item's loop).
func (s *Service) open(ctx context.Context, repoDir, id, loop string) (*session, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	cycle := cycleOf(ctx)
	repo, err := s.openItemRepo(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	if err := repo.CheckItemDir(id); err != nil {
		return nil, err
	}
	st, err := s.writableStore(ctx)
	if err != nil {
		return nil, err
	}
	p := &persister{st: st, repo: repo, log: s.log()}
	if cycle.trusts(repoDir, repo.Root, id) {
		p.cache = cycle
	}
	state, warns, err := p.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if state.Loop == "" && loop != "" {
		state.Loop = loop
	}
	g, warn, err := loopFor(state)
	if err != nil {
		return nil, err
	}
	if warn != "" {
		warns = append(warns, warn)
	}
	signer, signWarns := cycle.signer(repo.Root, func() (*runtime.Signer, []string) { return s.signerFor(repo) })
	warns = append(warns, signWarns...)
	rt := &runtime.Runtime{Graph: g, Persist: p, Config: s.cfg, Signer: signer, Repo: repo.Root, SpecRoot: repo.SpecRoot, OS: s.deps.OS,
		Commands: repoCommands(repo), Tracker: s.tracker(repo, state), CodeHost: s.codeHost(), Origin: originOf(repo, state), Notifier: s.deps.Notifier,
		Log: s.log(), DeferEntry: s.deps.DeferEntry}
	rt.Hosts = s.hosts()
	if s.deps.Sessions != nil {
		rt.Assignments = desk{sup: s.deps.Sessions, repo: repo.Root}
	}
	p.adopt = func(ctx context.Context, st *runtime.State) []runtime.EventRecord {
		return rt.VetAdoptedPointer(ctx, id, st)
	}
	return &session{store: st, repo: repo, rt: rt, state: state, warns: slices.Concat(repo.Warnings, warns)}, nil
}

// openItemRepo opens the repository at dir with the commands its default
// branch protects: once per poll cycle inside one (the cycle's read is
// shared, so callers never change it).
func (s *Service) openItemRepo(ctx context.Context, dir string) (*repoconfig.Repo, error) {
	return cycleOf(ctx).repo(dir, func(dir string) (*repoconfig.Repo, error) {
		repo, err := s.openRepo(dir)
		if err == nil {
			protectCommands(ctx, repo)
		}
		return repo, err
	})
}

// openKnown is open for an item that must already exist: a spec folder or
// stored state. An unknown id (a typo) is refused with the nearest known
// ones instead of becoming a new item.
func (s *Service) openKnown(ctx context.Context, repoDir, id string) (*session, error) {
	sess, err := s.open(ctx, repoDir, id, "")
	if err != nil {
		return nil, err
	}
	if err := s.requireKnown(ctx, sess.store, sess.repo, id); err != nil {
		return nil, err
	}
	return sess, nil
}

// repoCommands are the repository's own commands as its repository config
// declares them (commands:), for verify-tests.
func repoCommands(repo *repoconfig.Repo) runtime.RepoCommands {
	c := repo.Config.Commands
	out := runtime.RepoCommands{TimeoutSeconds: c.Timeout()}
	for _, d := range c.Declared() {
		out.List = append(out.List, runtime.RepoCommand{Key: d.Key, Argv: d.Argv})
	}
	return out
}

// signerFor is the signer for repo's decisions: the service's keys, plus the
// public keys the repository commits where no key is pinned or held.
// hosts are where the configured trackers' tickets live (integrations.*
// .baseUrl); a runtime that talks to a GitHub provider takes that
// provider's host. The decisions signed here name that repository. The
// default GitHub root names no host: a check then compares a decision's
// repository by owner and name unless told the host (check --repository).
func (s *Service) hosts() runtime.TicketHosts {
	i := s.cfg.Integrations
	h := runtime.TicketHosts{Jira: runtime.JiraSite(i.Jira.BaseURL)}
	if host := runtime.WebHost(i.GitHub.BaseURL); host != runtime.DefaultGitHubHost {
		h.GitHub = host
	}
	return h
}

func (s *Service) signerFor(repo *repoconfig.Repo) (*runtime.Signer, []string) {
	return s.deps.Signer.ForRepo(repo.Root)
}

func (s *Service) repoDir(dir string) string {
	if dir != "" {
		return dir
	}
	if s.deps.DefaultRepo != "" {
		return s.deps.DefaultRepo
	}
	return "."
}

// openRepo resolves a request's repository (default DefaultRepo, else the
// working directory), refusing one that is not exactly one of AllowedRepos
// when that is set: a subdirectory of a served repository is not a root.
func (s *Service) openRepo(dir string) (*repoconfig.Repo, error) {
	s.repoOpens.Add(1)
	if err := s.allowedRoot(s.repoDir(dir)); err != nil {
		return nil, err
	}
	repo, err := repoconfig.Open(s.repoDir(dir))
	if err != nil {
		return nil, err
	}
	if err := s.allowedRoot(repo.Root); err != nil {
		return nil, err
	}
	return repo, nil
}

// allowedRoot refuses a repository that is not exactly one of AllowedRepos
// (no restriction when empty).
func (s *Service) allowedRoot(dir string) error {
	if len(s.deps.AllowedRepos) == 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("repo %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, root := range s.deps.AllowedRepos {
		if abs == filepath.Clean(root) {
			return nil
		}
	}
	return invalid(fmt.Errorf("repo %q is outside the repositories this server serves (%s); name one of them exactly — a directory inside one is not its root", dir, strings.Join(s.deps.AllowedRepos, ", ")))
}

// allowedPath refuses a path outside AllowedRepos (no restriction when empty).
func (s *Service) allowedPath(p, what string) error {
	if len(s.deps.AllowedRepos) == 0 {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, p, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, root := range s.deps.AllowedRepos {
		if rel, err := filepath.Rel(root, abs); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return nil
		}
	}
	return invalid(fmt.Errorf("%s %q is outside the repositories this server serves (%s); pass a path inside one of them", what, p, strings.Join(s.deps.AllowedRepos, ", ")))
}
