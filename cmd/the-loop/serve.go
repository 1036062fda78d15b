package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/internal/metrics"
	loopmcp "github.com/the-loop/the-loop/mcp"
	"github.com/the-loop/the-loop/mcp/gateway"
	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/web"
	"github.com/the-loop/the-loop/web/probe"
	"github.com/the-loop/the-loop/web/webhook"
)

const serveUsage = "serve [--repo DIR] [--work-item ID] [--http ADDR [--token-file FILE] [--allow-origin ORIGIN]... [--metrics-addr ADDR]] [--config FILE]"

// serveOptions are the flags of `the-loop serve`.
type serveOptions struct {
	Repo      string
	WorkItem  string
	HTTP      string
	TokenFile string
	Origins   []string
	DB        string
	// MetricsAddr serves /healthz, /readyz and /metrics without a token.
	MetricsAddr string
}

func serveCmd() *Command {
	return &Command{Name: "serve", Usage: serveUsage, Summary: "run the MCP server (stdio by default, or streamable HTTP)",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &serveOptions{}
			fs := f.flagSet("serve", serveUsage)
			fs.StringVar(&opts.Repo, "repo", "", "repository checkout the tools act on (default: the current directory)")
			fs.StringVar(&opts.WorkItem, "work-item", "", "confine the server to one work item (a session the loop launched): only its check, graph_status, graph_complete, critic and continuity tools answer; handoff_post and ticket_create are refused")
			fs.StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765; a bare :PORT binds loopback) instead of stdio")
			fs.StringVar(&opts.TokenFile, "token-file", "", "read the HTTP bearer token from FILE (default: $THE_LOOP_MCP_TOKEN, or the variable named by mcp.http.tokenEnv)")
			fs.StringVar(&opts.MetricsAddr, "metrics-addr", "", "with --http: also serve /healthz, /readyz and /metrics (Prometheus, no token) on ADDR (a bare :PORT binds loopback)")
			fs.StringVar(&opts.DB, "db", "", "state database (default $THE_LOOP_DB, else ~/.local/state/the-loop/the-loop.db)")
			fs.Var(stringsFlag{dst: &opts.Origins}, "allow-origin", "accept browser requests from ORIGIN (repeatable; adds to mcp.http.allowedOrigins)")
			positional, err := f.parseFlags(fs, args)
			if err != nil {
				return err
			}
			if len(positional) > 0 {
				return usageErrorf("serve takes no arguments, got %q", strings.Join(positional, " "))
			}
			if opts.HTTP == "" && (opts.TokenFile != "" || len(opts.Origins) > 0 || opts.MetricsAddr != "") {
				return usageErrorf("--token-file, --allow-origin and --metrics-addr apply only with --http ADDR")
			}
			if socket, capability, ok := f.sessionEndpoint(); ok {
				// A confined session's server holds no key, no token and no
				// store: it carries the MCP stream to the poller, which
				// serves the session's own item there.
				if opts.HTTP != "" {
					return usageErrorf("inside a session the loop launched, serve forwards stdio to the loop; --http is refused")
				}
				if err := gateway.Pipe(ctx, socket, capability, f.Stdin, f.Stdout); err != nil {
					return fmt.Errorf("serve: %w", err)
				}
				return nil
			}
			if opts.Repo, err = resolveRepo(f, opts.Repo); err != nil {
				return err
			}
			if opts.WorkItem != "" {
				if err := runtime.ValidateID(opts.WorkItem); err != nil {
					return usageErrorf("--work-item: %v", err)
				}
			}
			return runServe(ctx, f, opts)
		}}
}

func runServe(ctx context.Context, f *Factory, opts *serveOptions) error {
	// stdout carries protocol frames only (stdio) or nothing (HTTP): logs
	// always go to stderr.
	logger := f.Logger()
	var m *metrics.Metrics
	if opts.HTTP != "" {
		m = metrics.New()
	}
	svc, err := newServeService(f, opts.DB, opts.Repo, opts.WorkItem != "", logger, m)
	if err != nil {
		return err
	}
	defer svc.Close()
	srv := loopmcp.NewServer(serverDeps(svc, logger, opts.Repo, opts.WorkItem), loopmcp.AllTools(), Version())
	if opts.HTTP == "" {
		err = transport.ServeStdio(ctx, srv, f.Stdin, f.Stdout, logger)
	} else {
		err = serveHTTP(ctx, f, svc, srv, opts, logger, m)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serveHTTP serves srv over streamable HTTP with the config's security
// settings (mcp.http.*) and the flags'.
func serveHTTP(ctx context.Context, f *Factory, svc *service.Service, srv *server.MCPServer, opts *serveOptions, logger *slog.Logger, m *metrics.Metrics) error {
	h := svc.Config().MCP.HTTP
	tokens, source, err := transport.ResolveTokens(opts.TokenFile, h.TokenEnv, f.Getenv)
	if err != nil {
		return err
	}
	o := transport.HTTPOptions{
		Addr:                    opts.HTTP,
		Tokens:                  tokens,
		TokenEnv:                h.TokenEnv,
		AllowedOrigins:          append(append([]string(nil), h.AllowedOrigins...), opts.Origins...),
		MaxBodyBytes:            h.MaxBodyBytes,
		MaxSessions:             h.MaxSessions,
		MaxSessionsPerPrincipal: h.MaxSessionsPerPrincipal,
		MaxConnections:          h.MaxConnections,
		Logger:                  logger,
		// Per-client cap: connections from one address.
		MaxConnectionsPerClient: h.MaxConnectionsPerClient,
		Ready: func(endpoint string) {
			fmt.Fprintf(f.Stderr, "the-loop serve: listening on %s\n", endpoint)
			fmt.Fprintf(f.Stderr, "the-loop serve: web view on %s\n", strings.TrimSuffix(endpoint, transport.EndpointPath)+web.Prefix)
		},
	}
	if o.Routes, err = webhookRoutes(f, svc, logger, m); err != nil {
		return err
	}
	cfg := svc.Config()
	ready := probe.Ready(readyChecks(svc, service.DefaultPollStatusPath(svc.DBPath()), time.Duration(cfg.Polling.IntervalSeconds)*time.Second))
	o.Routes[probe.ReadyPath] = ready
	if opts.MetricsAddr != "" {
		if err := serveMetrics(ctx, opts.MetricsAddr, ready, m, logger); err != nil {
			return err
		}
	}
	if a := h.OAuth; a.Issuer != "" || a.ResourceURL != "" {
		o.OAuth = &transport.OAuthOptions{Issuer: a.Issuer, ResourceURL: a.ResourceURL, JWKSURL: a.JWKSURL, Scopes: a.Scopes}
	}
	if len(tokens) > 0 {
		logger.Info("mcp http: bearer tokens configured", "source", source, "clients", len(tokens))
	}
	// The sessions live in the store, so replicas on one store share them;
	// a store that cannot be opened leaves them to this replica (the tools
	// say why they cannot save, as they do without HTTP).
	if st, err := svc.Store(ctx); err == nil {
		o.Shared = st
	} else {
		logger.Warn("mcp http: the state store could not be opened; sessions live on this replica only", "err", err)
	}
	uiTokens, uiNames := make([]string, 0, len(tokens)), make([]string, 0, len(tokens))
	for _, t := range tokens {
		uiTokens, uiNames = append(uiTokens, t.Token), append(uiNames, t.Name)
	}
	uiOAuth, err := webOAuth(ctx, f, h.OAuth, logger)
	if err != nil {
		return err
	}
	ui, err := web.New(web.Options{Backend: svc, Tokens: uiTokens, TokenNames: uiNames, OAuth: uiOAuth, TokenEnv: h.TokenEnv, AllowedOrigins: o.AllowedOrigins, Logger: logger, Stop: ctx.Done()})
	if err != nil {
		return err
	}
	o.Mounts = map[string]http.Handler{web.Prefix: ui}
	return transport.ServeHTTP(ctx, srv, o)
}

// newServeService builds the core the server's tools bind to: the same
// service the CLI verbs build (config, signing key, state store), with the
// ticket providers the CLI uses and repoDir as the default repository. A
// confined server serves repoDir alone (never mcp.repos).
func newServeService(f *Factory, db, repoDir string, confined bool, logger *slog.Logger, m *metrics.Metrics) (*service.Service, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	roots := append([]string{repoDir}, cfg.MCP.Repos...)
	if confined {
		roots = roots[:1]
	}
	allowed := make([]string, 0, len(roots))
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		allowed = append(allowed, r)
	}
	svc, err := f.Service(ServiceOptions{DB: db, Log: logger, DefaultRepo: repoDir, AllowedRepos: allowed, Confined: confined, Trees: true,
		WakePoller: true, Metrics: m})
	if err != nil {
		return nil, err
	}
	for _, r := range allowed {
		removed, err := svc.CleanTempFiles(r)
		if err != nil {
			logger.Warn("could not clean temporary files", "repo", r, "err", err)
		}
		for _, f := range removed {
			logger.Info("removed a temporary file a killed write left behind", "repo", r, "file", f)
		}
	}
	if err := svc.OpenStore(context.Background()); err != nil {
		// Reads still work from the portable records; claims will say why they cannot save.
		logger.Warn("the state store could not be opened; graph_complete will fail until it can", "err", err)
	}
	return svc, nil
}

// serverDeps are what the MCP tools are built from: the core, the default
// repository, the operator a stdio or static-token caller acts as, and the
// work item a launched session's server is confined to.
func serverDeps(svc *service.Service, logger *slog.Logger, repoDir, workItem string) loopmcp.Deps {
	cfg := svc.Config()
	return loopmcp.Deps{Logger: logger, DefaultRepo: repoDir, Backend: svc, Operator: cfg.Routing.Operator, WorkItem: workItem,
		MaxArgumentBytes: cfg.MCP.MaxArgumentBytes}
}

// resolveRepo makes --repo absolute (against the working directory) and
// checks that it is a directory.
func resolveRepo(f *Factory, repo string) (string, error) {
	if repo == "" {
		repo = f.Cwd
	}
	if !filepath.IsAbs(repo) {
		repo = filepath.Join(f.Cwd, repo)
	}
	info, err := os.Stat(repo)
	if err != nil {
		return "", fmt.Errorf("--repo %s: %w (give the path of a repository checkout)", repo, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("--repo %s is not a directory (give the path of a repository checkout)", repo)
	}
	return repo, nil
}

// webhookRoutes are the webhook endpoints of serve --http: /webhooks/github
// when webhooks.github.secretEnv names the secret's variable (refused when
// it is unset or empty), else a 404 naming that key; /webhooks/jira the
// same with webhooks.jira.secretEnv.
func webhookRoutes(f *Factory, svc *service.Service, logger *slog.Logger, m *metrics.Metrics) (map[string]http.Handler, error) {
	w := svc.Config().Webhooks
	routes := map[string]http.Handler{}
	for _, hook := range []struct {
		system, name, path, env string
		build                   func(webhook.Options) (*webhook.Handler, error)
	}{
		{"github", "GitHub", webhook.GitHubPath, w.GitHub.SecretEnv, webhook.NewGitHub},
		{"jira", "Jira", webhook.JiraPath, w.Jira.SecretEnv, webhook.NewJira},
	} {
		key := "webhooks." + hook.system + ".secretEnv"
		if hook.env == "" {
			routes[hook.path] = webhook.Off(key)
			continue
		}
		secret := f.Getenv(hook.env)
		if secret == "" {
			return nil, usageErrorf("%s names %s, which is unset or empty: export the secret entered in the %s webhook's settings, or remove %s to serve no %s webhooks",
				key, hook.env, hook.name, key, hook.name)
		}
		system := hook.system
		h, err := hook.build(webhook.Options{Secret: []byte(secret), SecretKey: key, MaxBodyBytes: w.MaxBodyBytes, Core: svc, Log: logger,
			Count: func(outcome string) { m.Delivery(system, outcome) }})
		if err != nil {
			return nil, err
		}
		logger.Info("webhooks: accepting "+hook.name+" deliveries", "path", hook.path, "secret", hook.env)
		routes[hook.path] = h
	}
	return routes, nil
}
