package config

// Webhooks configures the deliveries `serve --http` accepts from the
// ticket systems (docs/deploy.md#webhooks).
type Webhooks struct {
	// GitHub configures /webhooks/github.
	GitHub WebhookSource `yaml:"github"`
	// Jira configures /webhooks/jira (a signed admin webhook).
	Jira WebhookSource `yaml:"jira"`
	// MaxBodyBytes caps one delivery's body (default 26214400: GitHub
	// caps a payload at 25 MiB).
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
}

// WebhookSource is one ticket system's webhook.
type WebhookSource struct {
	// SecretEnv names the variable holding the webhook's secret. Empty
	// leaves the endpoint off; set, `serve --http` refuses to start while
	// the variable is unset or empty.
	SecretEnv string `yaml:"secretEnv"`
}

// DefaultWebhookMaxBodyBytes is GitHub's cap on a delivery's payload.
const DefaultWebhookMaxBodyBytes = 25 << 20

func (w *Webhooks) applyDefaults() {
	orDefault(&w.MaxBodyBytes, DefaultWebhookMaxBodyBytes)
}

func (w *Webhooks) validate() error {
	if n := w.GitHub.SecretEnv; n != "" && !IsEnvName(n) {
		return badKey("webhooks.github.secretEnv", "%s", notAnEnvName)
	}
	if n := w.Jira.SecretEnv; n != "" && !IsEnvName(n) {
		return badKey("webhooks.jira.secretEnv", "%s", notAnEnvName)
	}
	if w.MaxBodyBytes < 0 {
		return badKey("webhooks.maxBodyBytes", "%d is negative; give a positive number or leave it out for the default", w.MaxBodyBytes)
	}
	return nil
}
