package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/slack"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

// Factory is what every command is built from: the process's streams and
// environment, the operator config, and the one place the core service is
// constructed. A command never builds a dependency of its own, so adding one
// is a field of service.Deps and a line in Service below.
type Factory struct {
	*Env
	// ConfigPath is --config ("" = $THE_LOOP_CONFIG, else the default path);
	// every command's flag set binds it.
	ConfigPath string
	// LogFormat is --log-format, text or json: the form of every line on
	// stderr (see Logger).
	LogFormat string

	cfg *config.Config
	// raw is the process's stderr; Env.Stderr writes through the logger.
	raw      io.Writer
	logMu    sync.Mutex
	handlers map[string]slog.Handler
	// usages are the synopses of the flag sets made by flagSet.
	usages map[*flag.FlagSet]string
}

// newFactory builds the factory over env, whose Stderr becomes the
// logger's line writer (stderrLines).
func newFactory(env *Env) *Factory {
	e := *env
	f := &Factory{LogFormat: "text", raw: env.Stderr, usages: map[*flag.FlagSet]string{}}
	e.Stderr = &stderrLines{f: f}
	f.Env = &e
	return f
}

// Config loads the operator config once: --config, else $THE_LOOP_CONFIG,
// else the default path (which may be absent).
func (f *Factory) Config() (*config.Config, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	path, explicit := f.ConfigPath, f.ConfigPath != ""
	if !explicit {
		path = f.Getenv(config.EnvConfig)
		explicit = path != ""
	}
	if !explicit {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path, explicit)
	if err != nil {
		// A config the loop cannot use is the invocation's fault: exit 2.
		return nil, &usageError{msg: err.Error()}
	}
	f.cfg = cfg
	return cfg, nil
}

// ServiceOptions are what a command adds to the config when it builds the
// core.
type ServiceOptions struct {
	// DB is --db ("" = $THE_LOOP_DB, else store.path, else the default).
	DB string
	// Log receives the service's messages (nil: the factory's Logger).
	Log *slog.Logger
	// DefaultRepo and AllowedRepos are service.Deps' (the MCP server's).
	DefaultRepo  string
	AllowedRepos []string
	// NoSigningKey builds the service without loading the signing key:
	// keys init makes the key the config names, so it cannot require it.
	NoSigningKey bool
	// Sessions builds the session supervisor when a harness is configured
	// (the poller's daemon, `the-loop run`); Trees gives polled items their
	// own working trees (the poller's daemon), and tells `plan` where the
	// poller keeps them.
	Sessions, Trees bool
	// Confined builds the core of a launched session's MCP server: no
	// ticket integration, no notifier, and the entry chains its claims
	// reach are left to the poller.
	Confined bool
	// Store is a state store already open (the poller's, shared with the
	// servers of its confined sessions); nil opens DB's.
	Store *store.Handle
}

// Service builds the core service: the only call of service.New in the
// CLI. Every dependency is wired here, from the config and the environment:
// the state store, the ticket providers (with their conditional-request
// cache in that store), the Slack notifier, the critic runner, the signing
// keys, the clock and the logger.
func (f *Factory) Service(o ServiceOptions) (*service.Service, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = f.Logger()
	}
	signer := runtime.NewSigner(nil)
	if !o.NoSigningKey {
		if signer, err = runtime.LoadSigner(cfg.Signing, f.Getenv); err != nil {
			return nil, &usageError{msg: err.Error()}
		}
	}
	notifier, err := providers.NewNotifier(cfg, f.Getenv, slack.Options{Logger: log})
	if err != nil {
		return nil, &usageError{msg: fmt.Sprintf("integrations.slack: %v", err)}
	}
	db := o.Store
	if db == nil {
		db = store.NewHandle(f.dbPath(o.DB, cfg))
	}
	providers := service.ConfiguredProviders(cfg, f.Getenv, db, log)
	if o.Confined {
		providers, notifier = nil, nil
	}
	var sup *sessions.Supervisor
	if o.Sessions && cfg.SessionsEnabled() {
		if sup, err = f.supervisor(cfg, db, log); err != nil {
			return nil, &usageError{msg: err.Error()}
		}
	}
	var trees *service.Trees
	if o.Trees && cfg.SessionsEnabled() {
		if trees, err = f.trees(cfg, db); err != nil {
			return nil, &usageError{msg: err.Error()}
		}
	}
	return service.New(cfg, service.Deps{
		Store:        db,
		Providers:    providers,
		Notifier:     notifier,
		Critics:      &critic.Runner{LookupEnv: f.lookupEnv, Sensitive: service.SensitiveEnv(cfg)},
		Signer:       signer,
		Clock:        time.Now,
		Log:          log,
		DefaultRepo:  o.DefaultRepo,
		AllowedRepos: o.AllowedRepos,
		Sessions:     sup,
		Trees:        trees,
		DeferEntry:   o.Confined,
	}), nil
}

// dbPath is --db, else $THE_LOOP_DB, else store.url or store.path (""
// leaves the default to the store).
func (f *Factory) dbPath(flag string, cfg *config.Config) string {
	if flag != "" {
		return flag
	}
	if p := f.Getenv(store.EnvDB); p != "" {
		return p
	}
	return cfg.Store.Location()
}
