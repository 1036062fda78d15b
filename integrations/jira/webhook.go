package jira

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// Webhook is one verified Jira admin-webhook delivery, read down to the
// issue it concerns. The payload is never trusted beyond that: the poller
// re-reads the issue through the API before acting.
type Webhook struct {
	// ID is X-Atlassian-Webhook-Identifier (Jira's retries reuse it).
	ID string
	// Event is the payload's webhookEvent, e.g. "comment_created".
	Event string
	// Project is the issue's project key ("" when the event names none).
	Project string
	// Key is the issue's key, e.g. "OPS-7" ("" when the event names no
	// issue by key).
	Key string
	// AnyItem is true for an issue link created or deleted: Jira names its
	// ends by id, so any item of any project may be concerned.
	AnyItem bool
	// Sender is the account whose action sent it (the comment's author
	// for a comment event): its name, else its account id.
	Sender string
}

// SignatureHeader carries a signed admin webhook's "sha256=<hex>"
// HMAC-SHA256 of the raw body (the WebSub form).
const SignatureHeader = "X-Hub-Signature"

// DeliveryHeader carries the delivery's id.
const DeliveryHeader = "X-Atlassian-Webhook-Identifier"

// ReadWebhook verifies r's X-Hub-Signature (sha256= only) against secret
// and reads the event. It refuses (an *integrations.WebhookError) an empty
// secret, an unsigned delivery or one signed otherwise, a signature that
// does not verify (401), a body past the cap the caller set with
// http.MaxBytesReader (413), a body that is not JSON (415, 400), and a
// delivery without its identifier (400).
func ReadWebhook(r *http.Request, secret []byte) (Webhook, error) {
	w := Webhook{ID: r.Header.Get(DeliveryHeader)}
	if len(secret) == 0 {
		return w, integrations.RefuseWebhook(http.StatusInternalServerError, "the webhook secret is empty")
	}
	sig := r.Header.Get(SignatureHeader)
	hexMAC, ok := strings.CutPrefix(sig, "sha256=")
	if !ok {
		if sig == "" {
			return w, integrations.RefuseWebhook(http.StatusUnauthorized, "the delivery carries no %s header (register the webhook with a secret: only admin webhooks are signed)", SignatureHeader)
		}
		return w, integrations.RefuseWebhook(http.StatusUnauthorized, "the delivery's %s is not sha256=<hex>", SignatureHeader)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return w, integrations.RefuseWebhook(http.StatusUnsupportedMediaType, "the delivery's Content-Type %q is not application/json", r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return w, integrations.RefuseWebhook(http.StatusRequestEntityTooLarge, "the delivery's body is larger than %d bytes (webhooks.maxBodyBytes)", tooLarge.Limit)
		}
		return w, integrations.RefuseWebhook(http.StatusBadRequest, "the delivery's body could not be read: %v", err)
	}
	got, err := hex.DecodeString(hexMAC)
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if err != nil || !hmac.Equal(got, mac.Sum(nil)) {
		return w, integrations.RefuseWebhook(http.StatusUnauthorized, "the delivery's %s does not verify against the webhook secret", SignatureHeader)
	}
	if w.ID == "" {
		return w, integrations.RefuseWebhook(http.StatusBadRequest, "the delivery carries no %s header", DeliveryHeader)
	}
	var doc webhookDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return w, integrations.RefuseWebhook(http.StatusBadRequest, "the delivery's payload does not parse: %v", err)
	}
	w.Event = doc.WebhookEvent
	if doc.Issue != nil && issueKeyPattern.MatchString(doc.Issue.Key) {
		w.Key = doc.Issue.Key
		w.Project = doc.Issue.Fields.Project.Key
		if w.Project == "" {
			w.Project, _, _ = strings.Cut(w.Key, "-")
		}
	}
	if doc.IssueLink != nil && w.Key == "" {
		w.AnyItem = true
	}
	switch {
	case doc.Comment != nil && doc.Comment.Author != nil:
		w.Sender = doc.Comment.Author.login()
	case doc.User != nil:
		w.Sender = doc.User.login()
	}
	return w, nil
}

// webhookDoc is a Jira webhook payload, cut to the fields read.
type webhookDoc struct {
	WebhookEvent string `json:"webhookEvent"`
	Issue        *struct {
		Key    string `json:"key"`
		Fields struct {
			Project struct {
				Key string `json:"key"`
			} `json:"project"`
		} `json:"fields"`
	} `json:"issue"`
	Comment *struct {
		Author *webhookUser `json:"author"`
	} `json:"comment"`
	User      *webhookUser    `json:"user"`
	IssueLink json.RawMessage `json:"issueLink"`
}

type webhookUser struct {
	Name      string `json:"name"`
	AccountID string `json:"accountId"`
}

// login is the user as the provider names comment authors.
func (u *webhookUser) login() string {
	if u.Name != "" {
		return u.Name
	}
	return u.AccountID
}
