package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

const pollUsage = "poll [--once] [--interval DURATION] [--status-file FILE] [--log-format text|json]"

// pollOptions are the flags of `the-loop poll`.
type pollOptions struct {
	Once       bool
	Interval   time.Duration
	StatusFile string
	DB         string
}

func pollCmd() *Command {
	return &Command{Name: "poll", Usage: pollUsage,
		Summary: "the poller daemon: arms work items from ticket comments, holds those whose blockers have not finished, arms a parent's children in dependency order, and runs the human gates",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			opts := &pollOptions{}
			fs := f.flagSet("poll", pollUsage)
			fs.BoolVar(&opts.Once, "once", false, "run one cycle, print its report as JSON, and exit")
			fs.DurationVar(&opts.Interval, "interval", 0, "time between cycles (default polling.intervalSeconds)")
			fs.StringVar(&opts.StatusFile, "status-file", "", "heartbeat file written after each cycle (default beside the database)")
			fs.StringVar(&opts.DB, "db", "", "state database")
			if _, err := f.parseFlags(fs, args); err != nil {
				return err
			}
			return runPoll(ctx, f, opts)
		}}
}

func runPoll(ctx context.Context, f *Factory, opts *pollOptions) error {
	logger := f.Logger()
	// A one-off cycle launches no session: nothing would supervise it once
	// the command exits.
	svc, err := f.Service(ServiceOptions{DB: opts.DB, Log: logger, Sessions: !opts.Once, Trees: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	p, err := newPoller(svc, opts, logger)
	if err != nil {
		return err
	}
	// One poller per SQLite file; several share a PostgreSQL store, each
	// item worked under its lease.
	if !store.IsURL(svc.DBPath()) {
		lock, err := service.LockPoller(svc.DBPath())
		if err != nil {
			return fmt.Errorf("poll: %w", err)
		}
		defer func() { _ = lock.Release() }()
	}
	if opts.Once {
		rep := p.RunOnce(ctx)
		if err := writeJSON(f.Stdout, rep); err != nil {
			return err
		}
		if rep.AllFailed() {
			return unmet("poll: every source failed this cycle; each one's error is in the report")
		}
		return nil
	}
	every := opts.Interval
	if every <= 0 {
		every = time.Duration(svc.Config().Polling.IntervalSeconds) * time.Second
	}
	p.Wake = wakeOnSignal(ctx, syscall.SIGUSR1)
	sdNotify(logger, "READY=1\nSTATUS=polling every "+every.String())
	logger.Info("poller started", "interval", every.String(), "sources", len(p.Sources))
	err = p.Run(ctx, every)
	sdNotify(logger, "STOPPING=1")
	logger.Info("poller stopped")
	return err
}

// wakeOnSignal turns each sig the process receives into a wake of the
// poller (a burst of them is one wake), until ctx ends.
func wakeOnSignal(ctx context.Context, sig os.Signal) <-chan struct{} {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, sig)
	wake := make(chan struct{}, 1)
	go func() {
		defer signal.Stop(sigs)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	return wake
}

// newPoller checks the polling config and that every polled system's
// integration can do what the shipped loops need, and builds the poller.
func newPoller(svc *service.Service, opts *pollOptions, logger *slog.Logger) (*service.Poller, error) {
	cfg := svc.Config()
	if len(cfg.Polling.Sources) == 0 {
		return nil, usageErrorf("polling.sources is empty in %s: add a source, e.g. {system: github, repos: [OWNER/REPO], checkout: /srv/checkout}", configName(cfg.Path))
	}
	seen := map[string]bool{}
	var systems []string
	for _, src := range cfg.Polling.Sources {
		if !seen[src.System] {
			seen[src.System] = true
			systems = append(systems, src.System)
		}
	}
	if err := svc.CheckIntegrations(systems...); err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	p := &service.Poller{Svc: svc, Sources: cfg.Polling.Sources, StatusPath: opts.StatusFile, Log: logger,
		CycleTimeout: time.Duration(cfg.Polling.CycleTimeoutSeconds) * time.Second,
		LeaseTTL:     time.Duration(cfg.Polling.LeaseSeconds) * time.Second}
	if err := p.CheckSources(); err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	if err := svc.CheckTrees(context.Background(), cfg.Polling.Sources); err != nil {
		return nil, fmt.Errorf("poll: %w", err)
	}
	for _, w := range p.StartupWarnings() {
		logger.Warn(w)
	}
	if p.StatusPath == "" {
		p.StatusPath = service.DefaultPollStatusPath(svc.DBPath())
	}
	return p, nil
}

func configName(p string) string {
	if p == "" {
		return "the config (none was found; create ~/.config/the-loop/config.yaml)"
	}
	return p
}

// sdNotify sends a systemd notification when NOTIFY_SOCKET is set.
func sdNotify(logger *slog.Logger, state string) {
	sock := os.Getenv("NOTIFY_SOCKET")
	if sock == "" {
		return
	}
	if strings.HasPrefix(sock, "@") {
		sock = "\x00" + sock[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		logger.Warn("sd_notify failed", "err", err)
		return
	}
	defer conn.Close()
	_, _ = conn.Write([]byte(state))
}
