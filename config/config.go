// Package config loads the operator's configuration file (config.yaml).
//
// The file is strict: an unknown key or a value of the wrong type is refused at
// load, naming the key and the file line. Secrets never live in the file; it
// names the environment variables (or files) that hold them.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// EnvConfig names the environment variable that overrides the config path.
const EnvConfig = "THE_LOOP_CONFIG"

// Config is the whole operator configuration. Every key is documented in
// docs/config.md with its default.
type Config struct {
	Integrations Integrations `yaml:"integrations"`
	Routing      Routing      `yaml:"routing"`
	Signing      Signing      `yaml:"signing"`
	Store        Store        `yaml:"store"`
	MCP          MCP          `yaml:"mcp"`
	Polling      Polling      `yaml:"polling"`

	// Path is the file the configuration was read from ("" for defaults).
	Path string `yaml:"-"`
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

// Store configures the SQLite state database.
type Store struct {
	// Path of the database; THE_LOOP_DB and --db override it.
	Path string `yaml:"path"`
}

// MCP configures the MCP server.
type MCP struct {
	// Repos are extra repository roots the tools may name, beside the
	// server's --repo (always allowed); any other path is refused.
	Repos []string `yaml:"repos"`
	HTTP  MCPHTTP  `yaml:"http"`
}

// MCPHTTP configures the streamable HTTP transport.
type MCPHTTP struct {
	// TokenEnv names the variable holding the static bearer token.
	TokenEnv string `yaml:"tokenEnv"`
	// AllowedOrigins are the Origin header values accepted (besides none).
	AllowedOrigins []string `yaml:"allowedOrigins"`
	// MaxBodyBytes caps a request body.
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
	// MaxSessions caps concurrent sessions.
	MaxSessions int `yaml:"maxSessions"`
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
}

// Polling configures the poller daemon.
type Polling struct {
	IntervalSeconds int `yaml:"intervalSeconds"`
	// CycleTimeoutSeconds bounds one poll cycle over every source
	// (default 600).
	CycleTimeoutSeconds int      `yaml:"cycleTimeoutSeconds"`
	Sources             []Source `yaml:"sources"`
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

// Default returns the configuration used when no file exists.
func Default() *Config {
	c := &Config{}
	c.applyDefaults()
	return c
}

func (c *Config) applyDefaults() {
	g := &c.Integrations.GitHub
	if g.BaseURL == "" {
		g.BaseURL = "https://api.github.com/"
	}
	if g.TokenEnv == "" {
		g.TokenEnv = "GITHUB_TOKEN"
	}
	if g.TokenSource == "" {
		g.TokenSource = "env"
	}
	if g.GHBinary == "" {
		g.GHBinary = "gh"
	}
	j := &c.Integrations.Jira
	if j.Auth == "" {
		j.Auth = "cloud"
	}
	if j.EmailEnv == "" {
		j.EmailEnv = "JIRA_EMAIL"
	}
	if j.TokenEnv == "" {
		j.TokenEnv = "JIRA_API_TOKEN"
	}
	if c.Integrations.Slack.WebhookURLEnv == "" {
		c.Integrations.Slack.WebhookURLEnv = "SLACK_WEBHOOK_URL"
	}
	r := &c.Routing
	if r.AutoExecuteLabel == "" {
		r.AutoExecuteLabel = "the-loop: auto-execute"
	}
	if r.SessionPerPR == "" {
		r.SessionPerPR = "cross-repository"
	}
	if r.Classifier.TimeoutSeconds == 0 {
		r.Classifier.TimeoutSeconds = 30
	}
	if r.Classifier.Retries == 0 {
		r.Classifier.Retries = 2
	}
	h := &c.MCP.HTTP
	if h.TokenEnv == "" {
		h.TokenEnv = "THE_LOOP_MCP_TOKEN"
	}
	if h.MaxBodyBytes == 0 {
		h.MaxBodyBytes = 1 << 20
	}
	if h.MaxSessions == 0 {
		h.MaxSessions = 64
	}
	if h.MaxConnections == 0 {
		h.MaxConnections = 256
	}
	if h.MaxConnectionsPerClient == 0 {
		h.MaxConnectionsPerClient = 64
	}
	if c.Polling.IntervalSeconds == 0 {
		c.Polling.IntervalSeconds = 60
	}
	if c.Polling.CycleTimeoutSeconds == 0 {
		c.Polling.CycleTimeoutSeconds = 600
	}
	if c.Integrations.RequestTimeoutSeconds == 0 {
		c.Integrations.RequestTimeoutSeconds = 60
	}
}

// DefaultPath returns the config path: $THE_LOOP_CONFIG, else
// ${XDG_CONFIG_HOME:-~/.config}/the-loop/config.yaml.
func DefaultPath() string {
	if p := os.Getenv(EnvConfig); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "the-loop", "config.yaml")
}

// Load reads the config at path. An explicit path that does not exist is an
// error; the default path that does not exist yields the defaults.
func Load(path string, explicit bool) (*Config, error) {
	if path == "" {
		path = DefaultPath()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			c := Default()
			c.useCredentials(os.Getenv)
			return c, nil
		}
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.Path = path
	c.useCredentials(os.Getenv)
	return c, nil
}

// Parse decodes a config document strictly and applies defaults.
func Parse(data []byte) (*Config, error) {
	c := &Config{}
	var root yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &root); err != nil {
			return nil, fmt.Errorf("%s (the file is not valid YAML)", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
			msg := withKeys(&root, strings.TrimPrefix(err.Error(), "yaml: "))
			return nil, fmt.Errorf("%s (fix or remove that key; docs/config.md lists every key)", msg)
		}
	}
	if err := c.validate(); err != nil {
		var ke *keyError
		if errors.As(err, &ke) {
			if line := lineOfKey(&root, ke.key); line > 0 {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
		}
		return nil, err
	}
	c.applyDefaults()
	return c, nil
}

// keyError is a refused value, naming its key path.
type keyError struct {
	key, msg string
}

func (e *keyError) Error() string { return e.key + ": " + e.msg }

func badKey(key, format string, args ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, args...)}
}

func (c *Config) validate() error {
	if a := c.Integrations.Jira.Auth; a != "" && a != "cloud" && a != "datacenter" {
		return badKey("integrations.jira.auth", "%q is not one of cloud, datacenter", a)
	}
	for i, b := range c.Integrations.Jira.BlockingLinks {
		if strings.TrimSpace(b.Phrase) == "" {
			return badKey(fmt.Sprintf("integrations.jira.blockingLinks[%d].phrase", i), "is empty; name the link description that means \"waits for\", e.g. \"is blocked by\"")
		}
	}
	for _, kv := range [][2]string{
		{"integrations.github.tokenEnv", c.Integrations.GitHub.TokenEnv}, {"integrations.jira.tokenEnv", c.Integrations.Jira.TokenEnv},
		{"integrations.jira.emailEnv", c.Integrations.Jira.EmailEnv}, {"integrations.slack.webhookUrlEnv", c.Integrations.Slack.WebhookURLEnv},
		{"mcp.http.tokenEnv", c.MCP.HTTP.TokenEnv},
	} {
		if kv[1] != "" && !IsEnvName(kv[1]) {
			return badKey(kv[0], "%s", notAnEnvName)
		}
	}
	if s := c.Integrations.GitHub.TokenSource; s != "" && s != "env" && s != "gh" {
		return badKey("integrations.github.tokenSource", "%q is not one of env, gh", s)
	}
	switch c.Routing.SessionPerPR {
	case "", "never", "cross-repository", "always":
	default:
		return badKey("routing.sessionPerPr", "%q is not one of never, cross-repository, always", c.Routing.SessionPerPR)
	}
	for cmd := range c.Routing.Control.Keywords {
		if !isCommand(cmd) {
			return badKey("routing.control.keywords."+cmd, "unknown command; use one of %s", strings.Join(Commands, ", "))
		}
	}
	for _, n := range []struct {
		key string
		v   int
	}{
		{"integrations.requestTimeoutSeconds", c.Integrations.RequestTimeoutSeconds},
		{"polling.intervalSeconds", c.Polling.IntervalSeconds},
		{"polling.cycleTimeoutSeconds", c.Polling.CycleTimeoutSeconds},
		{"mcp.http.maxSessions", c.MCP.HTTP.MaxSessions},
		{"mcp.http.maxConnections", c.MCP.HTTP.MaxConnections},
		{"mcp.http.maxConnectionsPerClient", c.MCP.HTTP.MaxConnectionsPerClient},
	} {
		if n.v < 0 {
			return badKey(n.key, "%d is negative; give a positive number or leave it out for the default", n.v)
		}
	}
	for i, s := range c.Polling.Sources {
		if s.System != "github" && s.System != "jira" {
			return badKey(fmt.Sprintf("polling.sources[%d].system", i), "%q is not one of github, jira", s.System)
		}
	}
	return nil
}

// Commands is the control vocabulary, in documentation order.
var Commands = []string{"start", "stop", "pause", "resume", "execute", "contribute", "cleanup", "do", "review"}

func isCommand(s string) bool {
	for _, c := range Commands {
		if c == s {
			return true
		}
	}
	return false
}

// Keyword returns the keyword for a control command ("" when disabled).
func (c *Config) Keyword(cmd string) string {
	if c.Routing.Control.Enabled != nil && !*c.Routing.Control.Enabled {
		return ""
	}
	if kw, ok := c.Routing.Control.Keywords[cmd]; ok {
		return strings.TrimSpace(kw)
	}
	return "the-loop " + cmd
}
