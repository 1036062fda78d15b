// Package providers builds the configured ticket-system provider and
// notifier, parses refs of either system, and checks at start-up that the
// provider implements every operation the graph's hooks need.
package providers

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/slack"
	"github.com/the-loop/the-loop/internal/httpx"
)

// Systems are the ticket systems New accepts.
var Systems = []string{github.System, jira.System}

// Options are what a long-running process adds to the config when it
// builds its providers.
type Options struct {
	// Pages keeps conditional-request answers across cycles and restarts
	// (the state store); nil keeps them in memory.
	Pages httpx.PageStore
	// Logger receives the providers' retry and cache lines (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Wire, when set, wraps the transport each request attempt goes out
	// on (the metrics count requests and read the quota there).
	Wire func(system string, base http.RoundTripper) http.RoundTripper
}

func (o Options) client(system string, timeout time.Duration) httpx.ClientOptions {
	c := httpx.ClientOptions{RequestTimeout: timeout, Pages: o.Pages, Logger: o.Logger}
	if o.Wire != nil {
		c.HTTPClient = &http.Client{Transport: o.Wire(system, httpx.BaseRoundTripper(nil))}
	}
	return c
}

// New builds the provider for system ("github" or "jira") from cfg, reading
// credentials through getenv.
func New(cfg *config.Config, system string, getenv func(string) string) (integrations.Provider, error) {
	return NewWith(cfg, system, getenv, Options{})
}

// NewWith is New with opts. Every request is bounded end to end by
// integrations.requestTimeoutSeconds.
func NewWith(cfg *config.Config, system string, getenv func(string) string, opts Options) (integrations.Provider, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	timeout := time.Duration(cfg.Integrations.RequestTimeoutSeconds) * time.Second
	switch system {
	case github.System:
		p, err := github.FromConfigWith(cfg.Integrations.GitHub, getenv, github.Options{ClientOptions: opts.client(system, timeout)})
		if err != nil {
			return nil, err
		}
		return p, nil
	case jira.System:
		p, err := jira.FromConfigWith(cfg.Integrations.Jira, getenv, jira.Options{ClientOptions: opts.client(system, timeout)})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, fmt.Errorf("ticket system %q is not one of %s", system, strings.Join(Systems, ", "))
}

// NewNotifier builds the Slack notifier from integrations.slack. It returns
// (nil, nil) when no webhook is configured: notifications are opt-in.
func NewNotifier(cfg *config.Config, getenv func(string) string, opts slack.Options) (integrations.Notifier, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	n, err := slack.FromConfig(cfg.Integrations.Slack, getenv, opts)
	if errors.Is(err, slack.ErrNotConfigured) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// CheckOperations verifies that p implements every operation in needs (op →
// who needs it, e.g. "hook request-review on node design-approval"). The
// first missing operation, in operation-name order, is returned as
// *integrations.MissingOperationError naming the operation, the needer and
// both fixes. A nil p is a provider named "none" that implements nothing.
func CheckOperations(p integrations.Provider, needs map[integrations.Op]string) error {
	ops := make([]integrations.Op, 0, len(needs))
	for op := range needs {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i] < ops[j] })
	name := "none"
	if p != nil {
		name = p.Name()
	}
	for _, op := range ops {
		if !integrations.Supports(p, op) {
			return &integrations.MissingOperationError{Op: op, Provider: name, Needer: needs[op]}
		}
	}
	return nil
}

// ParseRef parses a ticket reference of either system: github:OWNER/REPO#N,
// OWNER/REPO#N, a GitHub issue or pull request URL, jira:KEY-1, or a Jira
// browse URL.
func ParseRef(s string) (integrations.Ref, error) {
	in := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(in, "jira:"), strings.Contains(in, "/browse/"):
		return jira.ParseRef(in)
	case strings.HasPrefix(in, "github:"), strings.Contains(in, "#"), strings.HasPrefix(in, "http"):
		return github.ParseRef(in)
	}
	if ref, err := jira.ParseRef(in); err == nil {
		return ref, nil
	}
	return integrations.Ref{}, fmt.Errorf("ref %q is neither github:OWNER/REPO#N nor jira:KEY-N", s)
}
