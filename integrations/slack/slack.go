// Package slack delivers the loop's notifications to a Slack incoming
// webhook. The webhook URL is a secret: it comes from the environment
// variable the config names and never appears in an error, a log line or a
// recorded event. A failed notification is reported (and recorded through
// Options.Record) but bounded by a timeout, so it cannot wedge the graph.
package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/httpx"
)

// DefaultTimeout bounds one notification.
const DefaultTimeout = 10 * time.Second

// maxText is Slack's documented limit on a message's text.
const maxText = 40000

// ErrNotConfigured is returned by FromConfig when the webhook variable is
// empty (Slack is opt-in).
var ErrNotConfigured = errors.New("slack notifications are not configured")

// Options configures New.
type Options struct {
	// WebhookURL is the incoming-webhook URL (a secret).
	WebhookURL string
	// Events lists the notify events delivered; empty delivers all.
	Events []string
	// HTTPClient sends the request (a plain client when nil).
	HTTPClient *http.Client
	// Timeout bounds one notification (DefaultTimeout when zero).
	Timeout time.Duration
	// Record receives every failure, already redacted, for the event log.
	Record func(ctx context.Context, event string, err error)
	// FailSoft makes Notify return nil after recording a failure, for
	// callers that must never stop on a notification.
	FailSoft bool
	// Logger receives one warning per failure (slog.Default when nil).
	Logger *slog.Logger
}

// Notifier posts {"text": ...} to the webhook.
type Notifier struct {
	o      Options
	redact *httpx.Redactor
}

var _ integrations.Notifier = (*Notifier)(nil)

// New validates the webhook URL (https, or http on a loopback host for
// tests) without ever echoing it.
func New(opts Options) (*Notifier, error) {
	u, err := url.Parse(strings.TrimSpace(opts.WebhookURL))
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname()))) {
		return nil, fmt.Errorf("the Slack webhook URL is not an https URL (check the variable named by integrations.slack.webhookUrlEnv)")
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := httpx.NewRedactor(opts.WebhookURL, u.String(), u.Path, u.EscapedPath())
	return &Notifier{o: opts, redact: r}, nil
}

// FromConfig reads the webhook URL from the variable integrations.slack
// names; ErrNotConfigured when it is empty.
func FromConfig(cfg config.Slack, getenv func(string) string, opts Options) (*Notifier, error) {
	name := cfg.WebhookURLEnv
	if name == "" {
		name = "SLACK_WEBHOOK_URL"
	}
	opts.WebhookURL = strings.TrimSpace(getenv(name))
	if opts.WebhookURL == "" {
		return nil, fmt.Errorf("%w: %s (integrations.slack.webhookUrlEnv) is empty", ErrNotConfigured, name)
	}
	if opts.Events == nil {
		opts.Events = cfg.Events
	}
	n, err := New(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Wants reports whether event is delivered under the Events filter.
func (n *Notifier) Wants(event string) bool {
	return len(n.o.Events) == 0 || slices.Contains(n.o.Events, event)
}

// Notify posts text for event. Events outside the filter are skipped. A
// failure is recorded, logged, and returned (nil under FailSoft).
func (n *Notifier) Notify(ctx context.Context, event, text string) error {
	if !n.Wants(event) {
		return nil
	}
	err := n.post(ctx, event, text)
	if err == nil {
		return nil
	}
	err = &integrations.APIError{System: "slack", Op: "notify", Target: event, Kind: kindOf(err), Message: n.redact.String(err.Error())}
	n.o.Logger.Warn("slack notification failed", "event", event, "error", err.Error())
	if n.o.Record != nil {
		n.o.Record(ctx, event, err)
	}
	if n.o.FailSoft {
		return nil
	}
	return err
}

type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

func kindOf(err error) error {
	var se *statusError
	if errors.As(err, &se) {
		if k := integrations.KindForStatus(se.status); k != nil {
			return k
		}
		return integrations.ErrInvalid
	}
	return integrations.ErrUnavailable
}

func (n *Notifier) post(ctx context.Context, event, text string) error {
	if strings.TrimSpace(text) == "" {
		text = event
	}
	if r := []rune(text); len(r) > maxText {
		text = string(r[:maxText-1]) + "…"
	}
	payload, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		return fmt.Errorf("encode payload: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.o.WebhookURL, bytes.NewReader(payload))
	if err != nil {
		return errors.New("build request")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.o.HTTPClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL, which is the secret
		}
		return fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return &statusError{status: resp.StatusCode, body: strings.TrimSpace(string(body))}
	}
	return nil
}
