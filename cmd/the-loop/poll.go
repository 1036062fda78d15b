package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/the-loop/the-loop/service"
)

func init() {
	register(&Command{
		Name:    "poll",
		Usage:   "poll [--once] [--interval DURATION] [--status-file FILE] [--log-format text|json]",
		Summary: "the poller daemon: arms work items from ticket comments and runs the human gates",
		Run:     runPoll,
	})
}

func runPoll(ctx context.Context, f *Factory, args []string) error {
	fs := flagSet(f, "poll", commands["poll"].Usage)
	once := fs.Bool("once", false, "run one cycle, print its report as JSON, and exit")
	interval := fs.Duration("interval", 0, "time between cycles (default polling.intervalSeconds)")
	statusFile := fs.String("status-file", "", "heartbeat file written after each cycle (default beside the database)")
	logFormat := fs.String("log-format", "text", "text or json (json under systemd)")
	db := fs.String("db", "", "state database")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := oneOf("log-format", *logFormat, "text", "json"); err != nil {
		return err
	}
	logger := newLogger(f, *logFormat)
	svc, err := f.Service(ServiceOptions{DB: *db, Log: logger})
	if err != nil {
		return err
	}
	defer svc.Close()
	cfg := svc.Config()
	if len(cfg.Polling.Sources) == 0 {
		return usageErrorf("polling.sources is empty in %s: add a source, e.g. {system: github, repos: [OWNER/REPO], checkout: /srv/checkout}", configName(cfg.Path))
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
		return fmt.Errorf("poll: %w", err)
	}
	lock, err := service.LockPoller(svc.DBPath())
	if err != nil {
		return fmt.Errorf("poll: %w", err)
	}
	defer func() { _ = lock.Release() }()
	p := &service.Poller{Svc: svc, Sources: cfg.Polling.Sources, StatusPath: *statusFile, Log: logger,
		CycleTimeout: time.Duration(cfg.Polling.CycleTimeoutSeconds) * time.Second}
	if p.StatusPath == "" {
		p.StatusPath = service.DefaultPollStatusPath(svc.DBPath())
	}
	if *once {
		rep := p.RunOnce(ctx)
		if err := writeJSON(f.Stdout, rep); err != nil {
			return err
		}
		if rep.AllFailed() {
			return unmet("poll: every source failed this cycle; each one's error is in the report")
		}
		return nil
	}
	every := *interval
	if every <= 0 {
		every = time.Duration(cfg.Polling.IntervalSeconds) * time.Second
	}
	sdNotify("READY=1\nSTATUS=polling every " + every.String())
	logger.Info("poller started", "interval", every.String(), "sources", len(cfg.Polling.Sources))
	err = p.Run(ctx, every)
	sdNotify("STOPPING=1")
	logger.Info("poller stopped")
	return err
}

func configName(p string) string {
	if p == "" {
		return "the config (none was found; create ~/.config/the-loop/config.yaml)"
	}
	return p
}

func newLogger(f *Factory, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(f.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(f.Stderr, nil))
}

// sdNotify sends a systemd notification when NOTIFY_SOCKET is set.
func sdNotify(state string) {
	sock := os.Getenv("NOTIFY_SOCKET")
	if sock == "" {
		return
	}
	if strings.HasPrefix(sock, "@") {
		sock = "\x00" + sock[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		fmt.Fprintf(os.Stderr, "sd_notify: %v\n", err)
		return
	}
	defer conn.Close()
	_, _ = conn.Write([]byte(state))
}
