package integrations

import "fmt"

// WebhookError is a webhook delivery refused before it was read: Status is
// the HTTP status to answer with, and the message says why without
// quoting the body.
type WebhookError struct {
	Status int
	Msg    string
}

func (e *WebhookError) Error() string { return e.Msg }

// RefuseWebhook returns a *WebhookError.
func RefuseWebhook(status int, format string, args ...any) error {
	return &WebhookError{Status: status, Msg: fmt.Sprintf(format, args...)}
}
