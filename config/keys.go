package config

import (
	"net/url"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the whole operator configuration. Every key is documented in
// docs/config.md with its default.
type Config struct {
	Integrations Integrations `yaml:"integrations"`
	Routing      Routing      `yaml:"routing"`
	Signing      Signing      `yaml:"signing"`
	Store        Store        `yaml:"store"`
	MCP          MCP          `yaml:"mcp"`
	Polling      Polling      `yaml:"polling"`
	DAG          DAG          `yaml:"dag"`
	Gates        Gates        `yaml:"gates"`
	CI           CI           `yaml:"ci"`
	Webhooks     Webhooks     `yaml:"webhooks"`
	// Notify configures who hears of an item stuck for too long.
	Notify Notify `yaml:"notify"`
	// Harnesses maps a harness name to how its sessions are launched
	// (docs/sessions.md); none configured means the poller launches none.
	Harnesses map[string]Harness `yaml:"harnesses"`
	// Sessions configures the agent sessions and the items' working trees.
	Sessions Sessions `yaml:"sessions"`
	// Critic is the critic policy: the top-level critics: and reviews:
	// keys (docs/reviews.md).
	Critic CriticPolicy `yaml:",inline"`

	// Path is the file the configuration was read from ("" for defaults).
	Path string `yaml:"-"`

	// root is the parsed document, for the line of a key (Where).
	root *yaml.Node
}

// Integrations configures the ticket systems and notification channels.
type Integrations struct {
	GitHub GitHub `yaml:"github"`
	Jira   Jira   `yaml:"jira"`
	Slack  Slack  `yaml:"slack"`
	// RequestTimeoutSeconds bounds one request to a ticket system end to
	// end, body included (default 60).
	RequestTimeoutSeconds int `yaml:"requestTimeoutSeconds"`
}

// GitHub configures the GitHub provider (github.com or GitHub Enterprise).
type GitHub struct {
	// BaseURL is the REST API root; GitHub Enterprise uses https://HOST/api/v3/.
	BaseURL string `yaml:"baseUrl"`
	// TokenEnv names the environment variable holding the token.
	TokenEnv string `yaml:"tokenEnv"`
	// TokenSource is "env" (default) or "gh" (run `gh auth token` when the
	// variable is unset).
	TokenSource string `yaml:"tokenSource"`
	// GHBinary is the gh executable used when TokenSource is "gh".
	GHBinary string `yaml:"ghBinary"`
}

// Jira configures the Jira provider (Cloud or Data Center).
type Jira struct {
	BaseURL string `yaml:"baseUrl"`
	// Auth is "cloud" (email + API token, basic) or "datacenter" (personal
	// access token, bearer).
	Auth     string   `yaml:"auth"`
	EmailEnv string   `yaml:"emailEnv"`
	TokenEnv string   `yaml:"tokenEnv"`
	Projects []string `yaml:"projects"`
	// BlockingLinks are the issue links read as dependencies (empty: type
	// Blocks described "is blocked by", and any type described "depends on").
	BlockingLinks []JiraBlockingLink `yaml:"blockingLinks"`
	// DoneResolutions are the resolutions that make a Done issue count as
	// closed as done (empty: Done, Fixed, Complete, Completed, Resolved).
	DoneResolutions []string `yaml:"doneResolutions"`
}

// JiraBlockingLink is one issue link read as a dependency: on an issue, a
// link of Type (any type when empty) described Phrase toward the other
// issue means "waits for the other issue".
type JiraBlockingLink struct {
	Type   string `yaml:"type"`
	Phrase string `yaml:"phrase"`
}

// Slack configures incoming-webhook notifications.
type Slack struct {
	// WebhookURLEnv names the environment variable holding the webhook URL.
	WebhookURLEnv string `yaml:"webhookUrlEnv"`
	// Events lists the notify events delivered to Slack (empty: all).
	Events []string `yaml:"events"`
}

// Routing configures who may steer the loop and how comments are read.
type Routing struct {
	// AuthorizedUsers are the ticket-system logins whose comments count as
	// decisions. Empty means nothing human-authored is ever acted on.
	AuthorizedUsers []string `yaml:"authorizedUsers"`
	// SelfLogins are the loop's own accounts; their comments are never
	// read as decisions.
	SelfLogins []string `yaml:"selfLogins"`
	// Operator is the ticket-system login of the person operating this host:
	// a handoff record posted through the CLI, the stdio MCP server or the
	// static HTTP bearer token is attributed to them (never to the loop).
	Operator string `yaml:"operator"`
	// AutoExecuteLabel arms a work item by label.
	AutoExecuteLabel string `yaml:"autoExecuteLabel"`
	// SessionPerPR is the pre-ticked pr-sessions row: never,
	// cross-repository or always.
	SessionPerPR string     `yaml:"sessionPerPr"`
	Control      Control    `yaml:"control"`
	Classifier   Classifier `yaml:"classifier"`
	// Models and Efforts are optional checklist groups (model-*, effort-*).
	Models  []string `yaml:"models"`
	Efforts []string `yaml:"efforts"`
}

// Control configures the control keywords read from ticket comments.
type Control struct {
	// Enabled false makes the parser recognise nothing.
	Enabled *bool `yaml:"enabled"`
	// Keywords maps a command (start, stop, pause, resume, execute,
	// contribute, cleanup, do, review) to its keyword; "" disables it.
	Keywords map[string]string `yaml:"keywords"`
}

// Classifier configures the optional external feedback classifier.
type Classifier struct {
	// Command is the argv run (never through a shell); empty uses the
	// built-in deterministic classifier only.
	Command        []string `yaml:"command"`
	TimeoutSeconds int      `yaml:"timeoutSeconds"`
	Retries        int      `yaml:"retries"`
}

// Signing configures the keys that sign and verify recorded decisions.
type Signing struct {
	// PrivateKeyFile is the Ed25519 private key on the poller's host
	// (`the-loop keys init` writes it, mode 0600, outside any repository).
	PrivateKeyFile string `yaml:"privateKeyFile"`
	// PublicKey pins the verification key(s), "ed25519:BASE64" (spaces or
	// commas between several); THE_LOOP_SIGNING_PUBLIC_KEY wins. When set,
	// the repository's .the-loop/signing.pub is not used to verify.
	PublicKey string `yaml:"publicKey"`
	// KeyFile names a file holding the legacy HMAC key;
	// THE_LOOP_SIGNING_KEY wins. Kept for the migration to Ed25519.
	KeyFile string `yaml:"keyFile"`
}

// Store configures the state database: a SQLite file (Path), or a
// PostgreSQL database (URL) several pollers and servers share.
type Store struct {
	// Path of the SQLite database; THE_LOOP_DB and --db override it.
	Path string `yaml:"path"`
	// URL of a PostgreSQL database, postgres://USER@HOST:PORT/DB?…; give
	// the password in the libpq password file (PGPASSFILE), not here.
	// THE_LOOP_DB and --db override it.
	URL string `yaml:"url"`
}

// Location is the store the config names: store.url, else store.path
// ("" leaves the default to the store).
func (s Store) Location() string {
	if s.URL != "" {
		return s.URL
	}
	return s.Path
}

// MCP configures the MCP server.
type MCP struct {
	// Repos are extra repository roots the tools may name, beside the
	// server's --repo (always allowed); any other path is refused.
	Repos []string `yaml:"repos"`
	// MaxArgumentBytes caps one argument of a tool call (its string, or
	// the strings and names inside a list or object), checked before the
	// call is read any further (default 262144, 256 KiB).
	MaxArgumentBytes int     `yaml:"maxArgumentBytes"`
	HTTP             MCPHTTP `yaml:"http"`
}

// MCPHTTP configures the streamable HTTP transport.
type MCPHTTP struct {
	// TokenEnv names the variable holding the static bearer token.
	TokenEnv string `yaml:"tokenEnv"`
	// AllowedOrigins are the Origin header values accepted (besides none).
	AllowedOrigins []string `yaml:"allowedOrigins"`
	// MaxBodyBytes caps a request body.
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
	// MaxSessions caps concurrent sessions; MaxSessionsPerPrincipal caps
	// those one caller (a static token's client, an OAuth subject) holds.
	MaxSessions             int `yaml:"maxSessions"`
	MaxSessionsPerPrincipal int `yaml:"maxSessionsPerPrincipal"`
	// MaxConnections caps open connections (default 256);
	// MaxConnectionsPerClient caps them per client address (default 64).
	MaxConnections          int   `yaml:"maxConnections"`
	MaxConnectionsPerClient int   `yaml:"maxConnectionsPerClient"`
	OAuth                   OAuth `yaml:"oauth"`
}

// OAuth configures OAuth 2.1 resource-server mode.
type OAuth struct {
	// Issuer is the authorization server's issuer URL; empty disables OAuth.
	Issuer string `yaml:"issuer"`
	// ResourceURL is this server's public URL (the token audience).
	ResourceURL string `yaml:"resourceUrl"`
	// JWKSURL overrides the key set URL found by discovery.
	JWKSURL string `yaml:"jwksUrl"`
	// Scopes lists the scopes a token must carry (empty: none required).
	Scopes []string `yaml:"scopes"`
	// WebClientID is the OAuth client the web view signs browsers in as
	// (the authorization-code flow with PKCE); empty keeps the token form.
	WebClientID string `yaml:"webClientId"`
	// WebClientSecretEnv names the variable holding that client's secret,
	// for a confidential client (empty: a public client, PKCE alone).
	WebClientSecretEnv string `yaml:"webClientSecretEnv"`
}

// Polling configures the poller daemon.
type Polling struct {
	IntervalSeconds int `yaml:"intervalSeconds"`
	// CycleTimeoutSeconds bounds one poll cycle over every source
	// (default 600).
	CycleTimeoutSeconds int `yaml:"cycleTimeoutSeconds"`
	// LeaseSeconds is how long an item's lease lasts unrenewed (default
	// 30): the pollers sharing a store take over a dead one's items
	// within it.
	LeaseSeconds int      `yaml:"leaseSeconds"`
	Sources      []Source `yaml:"sources"`
}

// Source is one thing the poller watches.
type Source struct {
	// System is github or jira.
	System string `yaml:"system"`
	// Repos are OWNER/REPO (github); Projects are keys (jira).
	Repos    []string `yaml:"repos"`
	Projects []string `yaml:"projects"`
	// Checkout is the local repository the poller evaluates gates in.
	Checkout string `yaml:"checkout"`
	// Label overrides the auto-execute label for this source.
	Label string `yaml:"label"`
}

// Notify configures the notice sent when an item stays stuck (docs/poller.md,
// "When an item is stuck").
type Notify struct {
	// StuckAfter is how long a condition lasts before people are told, as
	// a duration ("30m", "2h"; default 30m); "0" never tells.
	StuckAfter string `yaml:"stuckAfter"`
}

// StuckAfter is notify.stuckAfter as a duration (0: never notify). The
// value was checked at load.
func (c *Config) StuckAfter() time.Duration {
	d, err := parseStuckAfter(c.Notify.StuckAfter)
	if err != nil {
		return 0
	}
	return d
}

// DAG configures how the loop reads the dependencies between work items
// and holds an item whose blockers have not finished (docs/dag.md).
type DAG struct {
	// Enabled false: the poller reads no dependencies, holds nothing and
	// arms no children, and the await-blockers hook passes (default true).
	Enabled *bool `yaml:"enabled"`
	// MaxItems bounds the tickets one read of the dependency graph may
	// reach (default 500); a larger graph is an error, never a partial one.
	MaxItems int `yaml:"maxItems"`
}

// Gates configures the human gates.
type Gates struct {
	// MaxRouteBacks bounds how many times one gate may send the work back
	// to an earlier node (changes requested, more work) in an item's walk;
	// the time after that the item escalates instead (default 5).
	MaxRouteBacks int `yaml:"maxRouteBacks"`
}

// CI configures how the loop answers a pull request's failing checks
// (docs/pull-requests.md#the-ci-fix-loop).
type CI struct {
	// MaxFixAttempts bounds the times a pull request's work is sent back
	// for failing checks (default 3); one more red reading escalates.
	MaxFixAttempts int `yaml:"maxFixAttempts"`
}

// DependenciesOn reports whether dependencies are read and enforced
// (dag.enabled, default true).
func (c *Config) DependenciesOn() bool {
	return c.DAG.Enabled == nil || *c.DAG.Enabled
}

// redactURL hides a password a URL carries, for a message.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}
