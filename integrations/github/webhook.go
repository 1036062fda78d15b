package github

import (
	"errors"
	"io"
	"mime"
	"net/http"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

// Webhook is one verified GitHub webhook delivery, read down to what the
// loop acts on: which repository and which issues or pull requests it
// concerns. The payload itself is never trusted beyond that: the poller
// re-reads the item through the API before acting.
type Webhook struct {
	// ID is X-GitHub-Delivery (a redelivery reuses it).
	ID string
	// Event is X-GitHub-Event, e.g. "issue_comment".
	Event string
	// Action is the payload's action, e.g. "created" ("" when it has none).
	Action string
	// Repo is the repository's OWNER/NAME ("" when the event names none).
	Repo string
	// Numbers are the issues or pull requests the event concerns (one
	// number space). Empty with AnyItem false: the event concerns no item.
	Numbers []int
	// AnyItem is true for an event about the repository's commits that
	// names no pull request (a status, a check run on a branch): any of
	// its items may be concerned.
	AnyItem bool
	// Sender is the login of the account whose action sent the event.
	Sender string
}

func refuse(status int, format string, args ...any) error {
	return integrations.RefuseWebhook(status, format, args...)
}

// ReadWebhook verifies r's X-Hub-Signature-256 against secret with
// go-github's ValidatePayload and reads the event. It refuses (a
// *integrations.WebhookError) an empty secret, a delivery signed only with SHA-1 or not
// at all, a signature that does not verify (401), a body past the cap the
// caller set with http.MaxBytesReader (413), a content type GitHub does not
// send (415), and a payload that is not the event's JSON (400). An event
// the loop does not act on is read without error, with no Numbers.
func ReadWebhook(r *http.Request, secret []byte) (Webhook, error) {
	if len(secret) == 0 {
		// ValidatePayload checks nothing without a secret: never call it so.
		return Webhook{}, refuse(http.StatusInternalServerError, "the webhook secret is empty")
	}
	w := Webhook{ID: gh.DeliveryID(r), Event: gh.WebHookType(r)}
	if r.Header.Get(gh.SHA256SignatureHeader) == "" {
		if r.Header.Get(gh.SHA1SignatureHeader) != "" {
			return w, refuse(http.StatusUnauthorized, "the delivery is signed with SHA-1 only (X-Hub-Signature); the loop verifies X-Hub-Signature-256")
		}
		return w, refuse(http.StatusUnauthorized, "the delivery carries no X-Hub-Signature-256 header")
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && mt != "application/x-www-form-urlencoded") {
		return w, refuse(http.StatusUnsupportedMediaType, "the delivery's Content-Type %q is not application/json", r.Header.Get("Content-Type"))
	}
	body := &readErr{r: r.Body}
	r.Body = body
	payload, err := gh.ValidatePayload(r, secret)
	switch {
	case err == nil:
	case body.err != nil:
		var tooLarge *http.MaxBytesError
		if errors.As(body.err, &tooLarge) {
			return w, refuse(http.StatusRequestEntityTooLarge, "the delivery's body is larger than %d bytes (webhooks.maxBodyBytes)", tooLarge.Limit)
		}
		return w, refuse(http.StatusBadRequest, "the delivery's body could not be read: %v", body.err)
	default:
		return w, refuse(http.StatusUnauthorized, "the delivery's X-Hub-Signature-256 does not verify against the webhook secret")
	}
	if w.ID == "" {
		return w, refuse(http.StatusBadRequest, "the delivery carries no X-GitHub-Delivery header")
	}
	if w.Event == "" {
		return w, refuse(http.StatusBadRequest, "the delivery carries no X-GitHub-Event header")
	}
	if !knownEvent(w.Event) {
		// An event go-github has no type for concerns nothing the loop
		// watches: read, acted on by nobody.
		return w, nil
	}
	ev, err := gh.ParseWebHook(w.Event, payload)
	if err != nil {
		return w, refuse(http.StatusBadRequest, "the %s delivery's payload does not parse: %v", w.Event, err)
	}
	readEvent(&w, ev)
	return w, nil
}

func knownEvent(event string) bool {
	for _, t := range gh.MessageTypes() {
		if t == event {
			return true
		}
	}
	return false
}

// readEvent fills w's repository, numbers and sender from the typed event.
func readEvent(w *Webhook, ev any) {
	var (
		repo   *gh.Repository
		sender *gh.User
		action *string
	)
	switch e := ev.(type) {
	case *gh.IssuesEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		w.add(e.GetIssue().GetNumber())
	case *gh.IssueCommentEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		w.add(e.GetIssue().GetNumber())
	case *gh.PullRequestEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		w.add(e.GetPullRequest().GetNumber())
	case *gh.PullRequestReviewEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		w.add(e.GetPullRequest().GetNumber())
	case *gh.PullRequestReviewCommentEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		w.add(e.GetPullRequest().GetNumber())
	case *gh.PullRequestReviewThreadEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		w.add(e.GetPullRequest().GetNumber())
	case *gh.CheckRunEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		for _, pr := range e.GetCheckRun().PullRequests {
			w.add(pr.GetNumber())
		}
		w.AnyItem = len(w.Numbers) == 0
	case *gh.CheckSuiteEvent:
		repo, sender, action = e.Repo, e.Sender, e.Action
		for _, pr := range e.GetCheckSuite().PullRequests {
			w.add(pr.GetNumber())
		}
		w.AnyItem = len(w.Numbers) == 0
	case *gh.StatusEvent:
		// A commit status names a commit, never a pull request.
		repo, sender = e.Repo, e.Sender
		w.AnyItem = true
	default:
		if r, ok := ev.(interface{ GetRepo() *gh.Repository }); ok {
			repo = r.GetRepo()
		}
	}
	w.Repo = repo.GetFullName()
	w.Sender = sender.GetLogin()
	if action != nil {
		w.Action = *action
	}
}

func (w *Webhook) add(n int) {
	if n <= 0 {
		return
	}
	for _, m := range w.Numbers {
		if m == n {
			return
		}
	}
	w.Numbers = append(w.Numbers, n)
}

// readErr remembers the error reading the body failed with, so a body
// past its cap is told apart from a signature that does not verify.
type readErr struct {
	r   io.ReadCloser
	err error
}

func (b *readErr) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

func (b *readErr) Close() error { return b.r.Close() }
