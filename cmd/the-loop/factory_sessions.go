package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/agents/sandbox"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/proc"
	loopmcp "github.com/the-loop/the-loop/mcp"
	"github.com/the-loop/the-loop/mcp/gateway"
	"github.com/the-loop/the-loop/mcp/transport"
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
	env, err := f.gitEnv(cfg)
	if err != nil {
		return nil, err
	}
	conf := f.confiner(cfg, exe, dbPath)
	return sessions.New(cfg.Sessions.SessionLimits, sessions.Deps{
		Progress:      workspace.Progress{Env: env},
		Store:         service.HandleRecorder(db),
		Harnesses:     cfg.Harnesses,
		Serve:         serve,
		ServeEnv:      map[string]string{store.EnvDB: dbPath},
		Sensitive:     service.SensitiveEnv(cfg),
		StateDir:      dir,
		Lookup:        f.lookupEnv,
		Environ:       f.environ(),
		Log:           log,
		Confiner:      conf,
		Gateway:       f.gateway(db, log),
		ConfinedServe: []string{exe, "serve"},
		OwnDirs:       []string{cfg.Sessions.Trees},
	})
}

// confiner probes how this host confines sessions (the supervisor says so
// in its first cycle).
func (f *Factory) confiner(cfg *config.Config, exe, dbPath string) *sandbox.Confiner {
	launcher := filepath.Join(filepath.Dir(exe), "the-loop-sandbox")
	if fi, err := os.Stat(launcher); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		launcher = "" // the-loop sandbox-exec: the same launcher, slower to start
	}
	return sandbox.NewConfiner(cfg.Sessions.SessionConfinement, sandbox.Options{Exe: exe, Launcher: launcher, Protected: protectedPaths(cfg, dbPath, f.Getenv)})
}

// protectedPaths are what no session may reach even where a read-only
// system directory holds it: the config, the signing key, the store (its
// files for SQLite; for PostgreSQL, whose location is a URL, the libpq
// password file) and the credentials.
func protectedPaths(cfg *config.Config, dbPath string, getenv func(string) string) []string {
	out := []string{"/etc/credstore", "/etc/credstore.encrypted", "/run/credentials", "/etc/the-loop"}
	secrets := []string{cfg.Path, cfg.Signing.PrivateKeyFile, cfg.Signing.KeyFile, getenv("CREDENTIALS_DIRECTORY")}
	if store.IsURL(dbPath) {
		secrets = append(secrets, getenv("PGPASSFILE"))
		if home := getenv("HOME"); home != "" {
			secrets = append(secrets, filepath.Join(home, ".pgpass"))
		}
	} else {
		out = append(out, dbPath, dbPath+"-wal", dbPath+"-shm", dbPath+"-journal")
	}
	for _, p := range secrets {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// gateway is the poller's end of the confined sessions' sockets: each
// session's calls reach a confined server of this core, over the same
// store, with the signing key the poller holds.
func (f *Factory) gateway(db *store.Handle, log *slog.Logger) *gateway.Gateway {
	servers := func(scope sessions.Scope) (*server.MCPServer, error) {
		root := scope.Repo
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		svc, err := f.Service(ServiceOptions{Store: db, Log: log, DefaultRepo: scope.Repo, AllowedRepos: []string{root}, Confined: true})
		if err != nil {
			return nil, err
		}
		return loopmcp.NewServer(loopmcp.Deps{Logger: log, DefaultRepo: scope.Repo, Backend: svc, Operator: svc.Config().Routing.Operator,
			WorkItem: scope.WorkItem, Node: scope.Node, PR: scope.PR, PRRepo: scope.PRRepo}, loopmcp.AllTools(), Version()), nil
	}
	serve := func(ctx context.Context, srv *server.MCPServer, conn net.Conn, scope sessions.Scope) error {
		return transport.ServeConn(ctx, srv, conn, transport.Principal{Subject: "session:" + scope.Session, Method: "session"}, log)
	}
	return gateway.New(servers, serve, log)
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
	env, err := f.gitEnv(cfg)
	if err != nil {
		return nil, err
	}
	return service.NewTrees(root, workspace.Options{
		Remote:   cfg.Sessions.Remote,
		Env:      env,
		Secrets:  proc.SecretValuesOf(f.environ(), service.SensitiveEnv(cfg)...),
		Identity: workspace.Identity{Name: cfg.Sessions.CommitName, Email: cfg.Sessions.CommitEmail},
	}), nil
}

// gitEnv is the environment of every git command the loop runs in a
// working tree: the allow-listed basics and git's own transport settings,
// never a secret.
func (f *Factory) gitEnv(cfg *config.Config) ([]string, error) {
	env, err := proc.BuildEnv(proc.EnvSpec{Pass: []string{"GIT_SSH_COMMAND", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"},
		Sensitive: service.SensitiveEnv(cfg)}, f.lookupEnv)
	if err != nil {
		return nil, fmt.Errorf("sessions: the git environment of the working trees: %w", err)
	}
	return env.List(), nil
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
