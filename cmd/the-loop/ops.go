package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/web/probe"
)

// readyChecks is what /readyz checks for svc: the store, and, when
// polling.sources are configured, the poller's heartbeat (no older than
// twice every).
func readyChecks(svc *service.Service, heartbeat string, every time.Duration) func(context.Context) []service.ReadyCheck {
	o := service.ReadyOptions{MaxAge: 2 * every}
	if len(svc.Config().Polling.Sources) > 0 {
		o.Heartbeat = heartbeat
	}
	return func(ctx context.Context) []service.ReadyCheck { return svc.Ready(ctx, o) }
}

// serveMetrics serves /healthz, /readyz and /metrics on addr (a bare port
// binds loopback) until ctx ends. A listen failure is returned at once;
// the server's own end is logged.
func serveMetrics(ctx context.Context, addr string, ready http.Handler, m *metrics.Metrics, logger *slog.Logger) error {
	hostport, err := transport.NormalizeAddr("--metrics-addr", addr)
	if err != nil {
		return usageErrorf("%v", err)
	}
	ln, err := net.Listen("tcp", hostport)
	if err != nil {
		return fmt.Errorf("--metrics-addr: listen on %s: %w", hostport, err)
	}
	if !transport.IsLoopback(hostport) {
		logger.Warn("metrics: listening beyond loopback without authentication; bind it where only the scraper reaches it", "addr", ln.Addr().String())
	}
	srv := &http.Server{Handler: probe.Mux(ready, m), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute}
	logger.Info("metrics: serving /healthz, /readyz and /metrics", "addr", "http://"+ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return nil
}
