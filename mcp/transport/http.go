package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Defaults for HTTPOptions fields left zero.
const (
	DefaultMaxBodyBytes      = 1 << 20
	DefaultMaxSessions       = 64
	DefaultMaxConnections    = 256
	DefaultMaxConnsPerClient = 64
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 10 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultSessionIdleTTL    = 30 * time.Minute
	DefaultShutdownTimeout   = 25 * time.Second
)

// EndpointPath is where the MCP endpoint is mounted; HealthPath answers
// liveness probes without authentication.
const (
	EndpointPath = "/mcp"
	HealthPath   = "/healthz"
)

// HTTPOptions configures the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is HOST:PORT; a bare port or ":PORT" binds 127.0.0.1.
	Addr string
	// Token is the unnamed static bearer token (see ResolveToken); ""
	// means none.
	Token string
	// Tokens are further static tokens, each a client of its own name
	// (see ResolveTokens).
	Tokens []StaticToken
	// TokenEnv is the variable the token is read from, named in the
	// refusal message when no token is configured.
	TokenEnv string
	// OAuth turns on resource-server mode; nil leaves it off.
	OAuth *OAuthOptions
	// AllowedOrigins are the browser origins accepted (besides none).
	AllowedOrigins []string
	// MaxBodyBytes caps a request body (413 beyond it).
	MaxBodyBytes int64
	// MaxSessions caps concurrent sessions (503 beyond it);
	// MaxSessionsPerPrincipal caps those one principal holds (0, or more
	// than MaxSessions: MaxSessions). Whatever the caps, a principal never
	// evicts the session of one that holds as many sessions as it or fewer.
	MaxSessions, MaxSessionsPerPrincipal int
	// MaxConnections caps open connections; MaxConnectionsPerClient caps
	// them per client address. A connection past either cap is closed at
	// once.
	MaxConnections, MaxConnectionsPerClient int
	// Timeouts; zero takes the Default* value. WriteTimeout bounds one
	// response, so it bounds one tool call; long-lived GET event streams
	// are exempt and end at shutdown.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// SessionIdleTTL expires legacy sessions idle this long (mcp-go's
	// sweeper).
	SessionIdleTTL time.Duration
	// ShutdownTimeout bounds the wait for in-flight calls at shutdown.
	ShutdownTimeout time.Duration
	// Logger receives refusals and lifecycle lines; nil discards.
	Logger *slog.Logger
	// Ready, when set, is called with the endpoint URL once listening.
	Ready func(endpoint string)
	// Mounts are other handlers served on the same listener, by ServeMux
	// pattern (e.g. "/ui/" for the web view). Each authenticates its own
	// requests; the body limit applies to them too.
	Mounts map[string]http.Handler
	// Shared keeps the sessions where every replica serving the same
	// store sees them (nil: this process alone knows its sessions).
	Shared SharedSessions
	// Routes are further handlers mounted beside /mcp, by path, outside
	// its authentication (a webhook authenticates its sender by its
	// signature); the body cap is theirs to set.
	Routes map[string]http.Handler
}

func (o *HTTPOptions) applyDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessionsPerPrincipal <= 0 || o.MaxSessionsPerPrincipal > o.MaxSessions {
		o.MaxSessionsPerPrincipal = o.MaxSessions
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.MaxConnectionsPerClient <= 0 {
		o.MaxConnectionsPerClient = DefaultMaxConnsPerClient
	}
	def(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&o.ReadTimeout, DefaultReadTimeout)
	def(&o.WriteTimeout, DefaultWriteTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	def(&o.SessionIdleTTL, DefaultSessionIdleTTL)
	def(&o.ShutdownTimeout, DefaultShutdownTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.TokenEnv == "" {
		o.TokenEnv = DefaultTokenEnv
	}
}

// HTTPHandler is the complete HTTP surface: /mcp behind Origin → auth →
// body limit → sessions → splicing writer → mcp-go (so no byte of a body
// is read before the caller is authenticated), /healthz, and the
// protected-resource metadata when OAuth is on.
type HTTPHandler struct {
	mux        *http.ServeMux
	streamable *server.StreamableHTTPServer
	sessions   *sessionTable
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// CloseSessions ends every open event stream (used at shutdown).
func (h *HTTPHandler) CloseSessions(ctx context.Context) { h.streamable.CloseSessions(ctx) }

// Sessions is how many sessions are open now.
func (h *HTTPHandler) Sessions() int { return h.sessions.count() }

// Shutdown stops mcp-go's session sweeper and closes open streams.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	if err := h.streamable.Shutdown(ctx); err != nil {
		return fmt.Errorf("mcp http shutdown: %w", err)
	}
	return nil
}

// NewHTTPHandler builds the handler. It refuses a configuration without
// authentication (ErrNoAuth) and, in OAuth mode, runs issuer discovery
// under ctx. Binding rules are ServeHTTP's; the handler itself can be
// mounted anywhere (tests use httptest).
func NewHTTPHandler(ctx context.Context, srv *server.MCPServer, opts HTTPOptions) (*HTTPHandler, error) {
	opts.applyDefaults()
	addr := opts.Addr
	if addr == "" {
		addr = DefaultHTTPHost + ":0"
	}
	tokens := opts.Tokens
	if opts.Token != "" {
		tokens = append([]StaticToken{{Name: unnamedToken, Token: opts.Token}}, tokens...)
	}
	if len(tokens) == 0 && opts.OAuth == nil {
		return nil, noAuthError(addr, opts.TokenEnv)
	}
	logger := opts.Logger
	origins, err := newOriginPolicy(opts.AllowedOrigins, logger)
	if err != nil {
		return nil, err
	}
	var oauth *oauthVerifier
	if opts.OAuth != nil {
		if oauth, err = newOAuthVerifier(ctx, *opts.OAuth); err != nil {
			return nil, err
		}
	}
	sessions := newSessionTable(opts.MaxSessions, opts.MaxSessionsPerPrincipal, logger)
	sessions.shared, sessions.idle = opts.Shared, opts.SessionIdleTTL
	streamOpts := []server.StreamableHTTPOption{
		server.WithStreamableHTTPLogger(logger),
		server.WithSessionIdManagerResolver(sessions),
		server.WithSessionIdleTTL(opts.SessionIdleTTL),
	}
	if len(origins.list) > 0 {
		streamOpts = append(streamOpts, server.WithStreamableHTTPCORS(
			server.WithCORSAllowedOrigins(origins.list...),
			server.WithCORSAllowedHeaders("Content-Type", "Authorization", server.HeaderKeySessionID, server.HeaderKeyProtocolVersion, "Last-Event-ID", "Mcp-Method", "Mcp-Name"),
			server.WithCORSExposedHeaders(server.HeaderKeySessionID, "WWW-Authenticate"),
		))
	}
	if oauth != nil {
		streamOpts = append(streamOpts, server.WithProtectedResourceMetadata(oauth.metadata))
	}
	streamable := server.NewStreamableHTTPServer(srv, streamOpts...)
	sessions.evict = evictInto(streamable)

	auth := newAuthenticator(tokens, opts.TokenEnv, oauth, logger)
	auth.preflight = streamable
	endpoint := origins.middleware(
		auth.middleware(
			bodyLimit(opts.MaxBodyBytes, logger,
				sessions.middleware(
					unboundedStreams(splicing(logger, streamable))))))

	mux := http.NewServeMux()
	for path, h := range opts.Routes {
		mux.Handle(path, h)
	}
	mux.Handle(EndpointPath, endpoint)
	for pattern, m := range opts.Mounts {
		mux.Handle(pattern, bodyLimit(opts.MaxBodyBytes, logger, m))
	}
	mux.Handle(HealthPath, bodyLimit(opts.MaxBodyBytes, logger, origins.middleware(http.HandlerFunc(health))))
	if oauth != nil {
		// Discovery metadata is public and read cross-origin by design;
		// mcp-go serves it (with its own CORS headers) from the same handler.
		mux.Handle(server.ProtectedResourceMetadataPath(oauth.resource), bodyLimit(opts.MaxBodyBytes, logger, streamable))
	} else {
		handleNoOAuth(mux, opts.TokenEnv)
	}
	return &HTTPHandler{mux: mux, streamable: streamable, sessions: sessions}, nil
}

// unboundedStreams lifts the write deadline for GET event streams, which
// live until the client leaves or the server shuts down.
func unboundedStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		}
		next.ServeHTTP(w, r)
	})
}

func health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeRefusal(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	}
}

// ServeHTTP serves srv over streamable HTTP at opts.Addr until ctx is
// cancelled, then shuts down gracefully: it stops accepting connections,
// closes event streams, and waits up to ShutdownTimeout for in-flight calls
// to finish. It refuses to start without authentication, naming the ways to
// configure it, and binds loopback unless the address names another host.
func ServeHTTP(ctx context.Context, srv *server.MCPServer, opts HTTPOptions) error {
	opts.applyDefaults()
	addr, err := normalizeAddr(opts.Addr)
	if err != nil {
		return err
	}
	opts.Addr = addr
	handler, err := NewHTTPHandler(ctx, srv, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp http: listen on %s: %w", addr, err)
	}
	ln = newConnLimiter(ln, opts.MaxConnections, opts.MaxConnectionsPerClient, opts.Logger)
	logger := opts.Logger
	if !isLoopback(addr) {
		logger.Warn("mcp http: listening beyond loopback; serve it behind a TLS-terminating proxy", "addr", ln.Addr().String())
	}
	conns := &connTracker{states: map[net.Conn]http.ConnState{}}
	httpSrv := &http.Server{
		ConnState:         conns.track,
		ConnContext:       func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		Handler:           handler,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		ReadTimeout:       opts.ReadTimeout,
		WriteTimeout:      opts.WriteTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	endpoint := "http://" + ln.Addr().String() + EndpointPath
	logger.Info("mcp http: listening", "endpoint", endpoint)
	if opts.Ready != nil {
		opts.Ready(endpoint)
	}

	select {
	case err := <-serveErr:
		_ = handler.Shutdown(context.Background())
		return fmt.Errorf("mcp http: %w", err)
	case <-ctx.Done():
	}
	logger.Info("mcp http: shutting down; finishing in-flight calls", "timeout", opts.ShutdownTimeout.String())
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel()
	if err := shutdown(shutCtx, httpSrv, handler, conns); err != nil {
		_ = httpSrv.Close()
		return fmt.Errorf("mcp http: graceful shutdown incomplete: %w", err)
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp http: %w", err)
	}
	return nil
}

// shutdown closes event streams (again, as new ones may open while
// draining) and connections that never sent a request, while
// http.Server.Shutdown waits for active requests.
func shutdown(ctx context.Context, httpSrv *http.Server, handler *HTTPHandler, conns *connTracker) error {
	if err := handler.Shutdown(ctx); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- httpSrv.Shutdown(ctx) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("http shutdown: %w", err)
			}
			return nil
		case <-tick.C:
			handler.CloseSessions(ctx)
			conns.closeNew()
		}
	}
}

// connTracker records connection states so shutdown can close connections
// that were opened but never sent a request. http.Server.Shutdown would
// otherwise wait up to five seconds for each (Go issue 22682); they carry
// no call to finish.
type connTracker struct {
	mu     sync.Mutex
	states map[net.Conn]http.ConnState
}

func (c *connTracker) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateClosed, http.StateHijacked:
		delete(c.states, conn)
	default:
		c.states[conn] = state
	}
}

func (c *connTracker) closeNew() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for conn, state := range c.states {
		if state == http.StateNew {
			_ = conn.Close()
		}
	}
}
