package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

// sessionStateDir is where session files live: sessions.stateDir, else
// the folder of the state database.
func sessionStateDir(cfg *config.Config, db *store.Handle) (string, error) {
	if cfg.Sessions.StateDir != "" {
		return cfg.Sessions.StateDir, nil
	}
	return store.LocalDir(db.Path())
}

// supervisor builds the session supervisor from the config: the harnesses,
// the limits, this very program as every session's MCP server (confined to
// the session's item, on the same config and database), and the names of
// the variables that must never reach a session.
func (f *Factory) supervisor(cfg *config.Config, db *store.Handle, log *slog.Logger) (*sessions.Supervisor, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sessions: find this program to serve the sessions' MCP server: %w", err)
	}
	// A session's server records its claims in the same store. A
	// PostgreSQL URL reaches it without its password (the libpq password
	// file gives it), so the MCP config a harness can read holds none.
	dbPath := store.WithoutPassword(db.Path())
	if !store.IsURL(dbPath) {
		if dbPath, err = filepath.Abs(dbPath); err != nil {
			return nil, err
		}
	}
	serve := []string{exe, "serve"}
	if cfg.Path != "" {
		abs, err := filepath.Abs(cfg.Path)
		if err != nil {
			return nil, err
		}
		serve = append(serve, "--config", abs)
	}
	dir, err := sessionStateDir(cfg, db)
	if err != nil {
		return nil, err
	}
	return sessions.New(cfg.Sessions.SessionLimits, sessions.Deps{
		Store:     service.HandleRecorder(db),
		Harnesses: cfg.Harnesses,
		Serve:     serve,
		ServeEnv:  map[string]string{store.EnvDB: dbPath},
		Sensitive: service.SensitiveEnv(cfg),
		StateDir:  dir,
		Lookup:    f.lookupEnv,
		Environ:   f.environ(),
		Log:       log,
	})
}

// trees builds the per-item working trees of the polled checkouts.
func (f *Factory) trees(cfg *config.Config, db *store.Handle) (*service.Trees, error) {
	root := cfg.Sessions.Trees
	if root == "" {
		dir, err := sessionStateDir(cfg, db)
		if err != nil {
			return nil, err
		}
		root = filepath.Join(dir, "trees")
	}
	env, err := proc.BuildEnv(proc.EnvSpec{Pass: []string{"GIT_SSH_COMMAND", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"},
		Sensitive: service.SensitiveEnv(cfg)}, f.lookupEnv)
	if err != nil {
		return nil, fmt.Errorf("sessions: the git environment of the working trees: %w", err)
	}
	return service.NewTrees(root, workspace.Options{
		Remote:   cfg.Sessions.Remote,
		Env:      env.List(),
		Secrets:  proc.SecretValuesOf(f.environ(), service.SensitiveEnv(cfg)...),
		Identity: workspace.Identity{Name: cfg.Sessions.CommitName, Email: cfg.Sessions.CommitEmail},
	}), nil
}

// lookupEnv reads the process environment through Getenv (under systemd an
// unset variable reads the credential of its name, so a harness's secretEnv
// can name a credential).
func (f *Factory) lookupEnv(name string) (string, bool) {
	v := f.Getenv(name)
	return v, v != ""
}

func (f *Factory) environ() []string {
	if f.Environ != nil {
		return f.Environ
	}
	return os.Environ()
}
