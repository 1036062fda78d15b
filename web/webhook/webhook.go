// Package webhook is the webhook feed of `serve --http`: it verifies a
// ticket system's delivery (GitHub's, Jira's signed admin webhooks), hands what it concerns to the core
// (service.Deliver, which records it once and wakes the poller), and
// answers at once. The poller's sweep is the other feed of the same
// routing core, and catches whatever a failed delivery lost.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/service"
)

// Where each ticket system's deliveries are accepted.
const (
	GitHubPath = "/webhooks/github"
	JiraPath   = "/webhooks/jira"
)

// Outcomes a delivery is counted under besides service's DeliveryOutcome
// values (accepted, duplicate, ignored).
const (
	OutcomeBadSignature = "bad_signature"
	OutcomeRefused      = "refused"
	OutcomeFailed       = "failed"
)

// Core is what a delivery is handed to (*service.Service).
type Core interface {
	Deliver(ctx context.Context, d service.Delivery) (service.DeliveryResult, error)
}

// Handler accepts one ticket system's deliveries.
type Handler struct {
	system  string
	read    func(r *http.Request, secret []byte) (service.Delivery, error)
	secret  []byte
	maxBody int64
	core    Core
	log     *slog.Logger
	count   func(outcome string)
}

// Options configure NewGitHub.
type Options struct {
	// Secret is the webhook's secret; SecretKey names where it is set,
	// for the refusal of an empty one.
	Secret    []byte
	SecretKey string
	// MaxBodyBytes caps a delivery's body.
	MaxBodyBytes int64
	Core         Core
	// Log receives one line per delivery (never its body); nil: slog.Default().
	Log *slog.Logger
	// Count, when set, is called with each delivery's outcome.
	Count func(outcome string)
}

// NewGitHub returns the handler of GitHub's deliveries, refusing an empty
// secret (go-github's ValidatePayload would accept any unsigned delivery
// with one).
func NewGitHub(o Options) (*Handler, error) {
	return newHandler(github.System, "GitHub", readGitHub, o)
}

// NewJira returns the handler of Jira's signed admin webhooks, refusing an
// empty secret.
func NewJira(o Options) (*Handler, error) {
	return newHandler(jira.System, "Jira", readJira, o)
}

func readGitHub(r *http.Request, secret []byte) (service.Delivery, error) {
	hook, err := github.ReadWebhook(r, secret)
	return service.Delivery{System: github.System, ID: hook.ID, Event: hook.Event, Action: hook.Action, Repo: hook.Repo,
		Numbers: hook.Numbers, AnyItem: hook.AnyItem, Sender: hook.Sender}, err
}

func readJira(r *http.Request, secret []byte) (service.Delivery, error) {
	hook, err := jira.ReadWebhook(r, secret)
	d := service.Delivery{System: jira.System, ID: hook.ID, Event: hook.Event, Repo: hook.Project, AnyItem: hook.AnyItem, Sender: hook.Sender}
	if hook.Key != "" {
		d.Keys = []string{hook.Key}
	}
	return d, err
}

func newHandler(system, name string, read func(*http.Request, []byte) (service.Delivery, error), o Options) (*Handler, error) {
	if len(o.Secret) == 0 {
		return nil, errors.New("webhooks: the " + name + " webhook secret is empty: set " + o.SecretKey + " to the secret entered in the webhook's settings on " + name)
	}
	if o.MaxBodyBytes <= 0 {
		return nil, errors.New("webhooks: the body cap must be positive (webhooks.maxBodyBytes)")
	}
	if o.Core == nil {
		return nil, errors.New("webhooks: no core to deliver to")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Count == nil {
		o.Count = func(string) {}
	}
	return &Handler{system: system, read: read, secret: o.Secret, maxBody: o.MaxBodyBytes, core: o.Core, log: o.Log, count: o.Count}, nil
}

// ServeHTTP implements http.Handler: POST only; the signature is checked
// before anything else of the delivery is read or recorded; 202 once the
// delivery is recorded (or found a duplicate, or ignored), 503 when it
// could not be recorded, so the sender shows a failed delivery that can be
// redelivered (Jira retries it).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		answer(w, http.StatusMethodNotAllowed, map[string]string{"error": "deliveries are POSTed"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.maxBody)
	d, err := h.read(r, h.secret)
	if err != nil {
		var refused *integrations.WebhookError
		status, outcome := http.StatusBadRequest, OutcomeRefused
		if errors.As(err, &refused) {
			status = refused.Status
		}
		if status == http.StatusUnauthorized {
			outcome = OutcomeBadSignature
		}
		h.count(outcome)
		// Never the body: it is unauthenticated input.
		h.log.Warn("webhook delivery refused", "system", h.system, "delivery", d.ID, "event", d.Event,
			"remote", r.RemoteAddr, "status", status, "reason", err.Error())
		answer(w, status, map[string]string{"error": err.Error()})
		return
	}
	if h.system == github.System && d.Event == "ping" {
		h.count(string(service.DeliveryIgnored))
		h.log.Info("webhook ping received", "system", h.system, "delivery", d.ID, "repo", d.Repo)
		answer(w, http.StatusAccepted, service.DeliveryResult{Outcome: service.DeliveryIgnored, Reason: "pong"})
		return
	}
	res, err := h.core.Deliver(r.Context(), d)
	if err != nil {
		h.count(OutcomeFailed)
		h.log.Error("webhook delivery could not be recorded; the sender shows it failed and it can be redelivered",
			"system", h.system, "delivery", d.ID, "event", d.Event, "err", err)
		answer(w, http.StatusServiceUnavailable, map[string]string{"error": "the delivery could not be recorded; redeliver it later"})
		return
	}
	h.count(string(res.Outcome))
	answer(w, http.StatusAccepted, res)
}

// Off answers every request to a webhook path whose endpoint is not
// configured: 404, naming the key that turns it on.
func Off(key string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer(w, http.StatusNotFound, map[string]string{"error": "webhooks are off: set " + key + " to the variable holding the webhook's secret"})
	})
}

func answer(w http.ResponseWriter, status int, v any) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false) // the messages name <hex>, never markup
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body.Bytes())
}
