package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// Service holds the dependencies every operation needs. It is safe for
// concurrent use; the MCP server shares one across calls.
type Service struct {
	Config *config.Config
	Signer *runtime.Signer
	// DBPath is the state database ("" = store.DefaultPath()).
	DBPath string
	// Provider returns the ticket integration for a system ("github",
	// "jira"); nil means no integration is configured.
	Provider func(system string) (integrations.Provider, error)
	Notifier integrations.Notifier
	Log      *slog.Logger
	// DefaultRepo is used when a request names no repository.
	DefaultRepo string
	// AllowedRepos, when set, are the only repository roots (and the only
	// places handoff files are read from) a request may name: a remote MCP
	// caller cannot point the server at arbitrary paths on its host.
	AllowedRepos []string

	mu    sync.Mutex
	store *store.Store
}

// New returns a service over cfg with the signing keys it names (and the
// process environment's THE_LOOP_SIGNING_KEY / THE_LOOP_SIGNING_PUBLIC_KEY).
func New(cfg *config.Config) (*Service, error) { return NewWithEnv(cfg, nil) }

// NewWithEnv is New reading the key variables through getenv.
func NewWithEnv(cfg *config.Config, getenv func(string) string) (*Service, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	signer, err := runtime.LoadSigner(cfg.Signing, getenv)
	if err != nil {
		return nil, err
	}
	return &Service{Config: cfg, Signer: signer, DBPath: cfg.Store.Path, Log: slog.Default()}, nil
}

// Close releases the store.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		err := s.store.Close()
		s.store = nil
		return err
	}
	return nil
}

func (s *Service) dbPath() string {
	if s.DBPath != "" {
		return s.DBPath
	}
	return store.DefaultPath()
}

// writableStore opens (once) the read-write store.
func (s *Service) writableStore(ctx context.Context) (*store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store, nil
	}
	st, err := store.Open(ctx, s.dbPath())
	if err != nil {
		return nil, fmt.Errorf("open the state store: %w", err)
	}
	s.store = st
	return st, nil
}

// readStore returns the open store, or opens the database read-only for a
// single read (nil when no database exists: the portable records are used).
func (s *Service) readStore(ctx context.Context) (*store.Store, func(), error) {
	s.mu.Lock()
	if s.store != nil {
		st := s.store
		s.mu.Unlock()
		return st, func() {}, nil
	}
	s.mu.Unlock()
	path := s.dbPath()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, func() {}, nil
	}
	st, err := store.OpenReadOnly(ctx, path)
	if errors.Is(err, store.ErrNoStore) {
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open the state store %s read-only: %w", path, err)
	}
	return st, func() { st.Close() }, nil
}

// tracker returns the provider for a state's ref system (nil when none).
func (s *Service) tracker(repo *Repo, st *runtime.State) integrations.Provider {
	if s.Provider == nil {
		return nil
	}
	system := repo.Harness.Ticketing.System
	if ref, err := runtime.ParseTicketRef(st.Ref); err == nil {
		system = ref.System
	}
	if system == "" {
		system = "github"
	}
	p, err := s.Provider(system)
	if err != nil {
		s.log().Debug("no ticket integration", "system", system, "err", err)
		return nil
	}
	return p
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// session bundles what one mutating operation on a work item needs.
type session struct {
	repo  *Repo
	rt    *runtime.Runtime
	state *runtime.State
	warns []string
}

// open resolves the repository, loads the item's state and builds the
// runtime for the loop the item walks (loop overrides a fresh item's loop).
func (s *Service) open(ctx context.Context, repoDir, id, loop string) (*session, error) {
	if err := runtime.ValidateID(id); err != nil {
		return nil, err
	}
	repo, err := s.openRepo(repoDir)
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
	signer, signWarns := s.signerFor(repo)
	warns = append(warns, signWarns...)
	rt := &runtime.Runtime{Graph: g, Persist: p, Config: s.Config, Signer: signer, Repo: repo.Root, SpecRoot: repo.SpecRoot,
		Tracker: s.tracker(repo, state), Notifier: s.Notifier, Log: s.log()}
	p.adopt = func(ctx context.Context, st *runtime.State) []runtime.EventRecord {
		return rt.VetAdoptedPointer(ctx, id, st)
	}
	return &session{repo: repo, rt: rt, state: state, warns: append(repo.Warnings, warns...)}, nil
}

// signerFor is the signer for repo's decisions: the service's keys, plus the
// public keys the repository commits where no key is pinned or held.
func (s *Service) signerFor(repo *Repo) (*runtime.Signer, []string) {
	if s.Signer == nil {
		s.Signer = runtime.NewSigner(nil)
	}
	return s.Signer.ForRepo(repo.Root)
}

func (s *Service) repoDir(dir string) string {
	if dir != "" {
		return dir
	}
	if s.DefaultRepo != "" {
		return s.DefaultRepo
	}
	return "."
}

// DBPathOrDefault is the database path in use.
func (s *Service) DBPathOrDefault() string { return s.dbPath() }

// OpenStore opens the state store now, so a long-running server reads and
// writes through one handle instead of opening the database per call.
func (s *Service) OpenStore(ctx context.Context) error {
	_, err := s.writableStore(ctx)
	return err
}

// openRepo resolves a request's repository (default DefaultRepo, else the
// working directory), refusing one that is not exactly one of AllowedRepos
// when that is set: a subdirectory of a served repository is not a root.
func (s *Service) openRepo(dir string) (*Repo, error) {
	if err := s.allowedRoot(s.repoDir(dir)); err != nil {
		return nil, err
	}
	repo, err := OpenRepo(s.repoDir(dir))
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
	if len(s.AllowedRepos) == 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("repo %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, root := range s.AllowedRepos {
		if abs == filepath.Clean(root) {
			return nil
		}
	}
	return fmt.Errorf("repo %q is outside the repositories this server serves (%s); name one of them exactly — a directory inside one is not its root", dir, strings.Join(s.AllowedRepos, ", "))
}

// allowedPath refuses a path outside AllowedRepos (no restriction when empty).
func (s *Service) allowedPath(p, what string) error {
	if len(s.AllowedRepos) == 0 {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, p, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, root := range s.AllowedRepos {
		if rel, err := filepath.Rel(root, abs); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return nil
		}
	}
	return fmt.Errorf("%s %q is outside the repositories this server serves (%s); pass a path inside one of them", what, p, strings.Join(s.AllowedRepos, ", "))
}
