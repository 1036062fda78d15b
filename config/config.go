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
	"time"

	"gopkg.in/yaml.v3"
)

// EnvConfig names the environment variable that overrides the config path.
const EnvConfig = "THE_LOOP_CONFIG"

// Default returns the configuration used when no file exists.
func Default() *Config {
	c := &Config{}
	c.applyDefaults()
	return c
}

func (c *Config) applyDefaults() {
	g, j, r, h := &c.Integrations.GitHub, &c.Integrations.Jira, &c.Routing, &c.MCP.HTTP
	orDefault(&g.BaseURL, "https://api.github.com/")
	orDefault(&g.TokenEnv, "GITHUB_TOKEN")
	orDefault(&g.TokenSource, "env")
	orDefault(&g.GHBinary, "gh")
	orDefault(&j.Auth, "cloud")
	orDefault(&j.EmailEnv, "JIRA_EMAIL")
	orDefault(&j.TokenEnv, "JIRA_API_TOKEN")
	orDefault(&c.Integrations.Slack.WebhookURLEnv, "SLACK_WEBHOOK_URL")
	orDefault(&c.Integrations.RequestTimeoutSeconds, 60)
	orDefault(&r.AutoExecuteLabel, "the-loop: auto-execute")
	orDefault(&r.SessionPerPR, "cross-repository")
	orDefault(&r.Classifier.TimeoutSeconds, 30)
	orDefault(&r.Classifier.Retries, 2)
	orDefault(&h.TokenEnv, "THE_LOOP_MCP_TOKEN")
	orDefault(&c.MCP.MaxArgumentBytes, 256<<10)
	orDefault(&h.MaxBodyBytes, 1<<20)
	orDefault(&h.MaxSessions, 64)
	orDefault(&h.MaxSessionsPerPrincipal, h.MaxSessions)
	orDefault(&h.MaxConnections, 256)
	orDefault(&h.MaxConnectionsPerClient, 64)
	orDefault(&c.Polling.IntervalSeconds, 60)
	orDefault(&c.Polling.CycleTimeoutSeconds, 600)
	orDefault(&c.Polling.LeaseSeconds, 30)
	orDefault(&c.DAG.MaxItems, 500)
	orDefault(&c.Notify.StuckAfter, "30m")
	orDefault(&c.Gates.MaxRouteBacks, 5)
	orDefault(&c.CI.MaxFixAttempts, 3)
	c.Sessions.applyDefaults()
	c.Critic.ApplyDefaults()
	c.Webhooks.applyDefaults()
}

// orDefault sets *p to v when it holds its zero value (the key was left
// out).
func orDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
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
		key := ""
		var fe *FieldError
		if errors.As(err, &fe) {
			key = fe.Key
		}
		if line := lineOfKey(&root, key); key != "" && line > 0 {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		return nil, err
	}
	c.applyDefaults()
	c.root = &root
	return c, nil
}

// Where names a key of the config for a message about its value: the file
// and the line when the key is in it ("config FILE line N: KEY"), else the
// key alone.
func (c *Config) Where(key string) string {
	file := c.Path
	if file == "" {
		file = "the config"
	} else {
		file = "config " + file
	}
	if c.root != nil {
		if line := lineOfKey(c.root, key); line > 0 {
			return fmt.Sprintf("%s line %d: %s", file, line, key)
		}
	}
	return file + ": " + key
}

// FieldError is a refused configuration value: Key is its dotted path
// (harnesses.claude.adapter, critics[1].command), Msg says what is wrong
// and how to fix it.
type FieldError struct {
	Key string
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

func badKey(key, format string, args ...any) error {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)}
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
		{"polling.leaseSeconds", c.Polling.LeaseSeconds},
		{"mcp.maxArgumentBytes", c.MCP.MaxArgumentBytes},
		{"mcp.http.maxSessions", c.MCP.HTTP.MaxSessions},
		{"mcp.http.maxSessionsPerPrincipal", c.MCP.HTTP.MaxSessionsPerPrincipal},
		{"mcp.http.maxConnections", c.MCP.HTTP.MaxConnections},
		{"mcp.http.maxConnectionsPerClient", c.MCP.HTTP.MaxConnectionsPerClient},
		{"dag.maxItems", c.DAG.MaxItems},
		{"gates.maxRouteBacks", c.Gates.MaxRouteBacks},
		{"ci.maxFixAttempts", c.CI.MaxFixAttempts},
	} {
		if n.v < 0 {
			return badKey(n.key, "%d is negative; give a positive number or leave it out for the default", n.v)
		}
	}
	if h := c.MCP.HTTP; h.MaxSessionsPerPrincipal > h.MaxSessions {
		return badKey("mcp.http.maxSessionsPerPrincipal", "%d is more than mcp.http.maxSessions (%d); one caller cannot hold more sessions than the server", h.MaxSessionsPerPrincipal, h.MaxSessions)
	}
	if c.Store.URL != "" && c.Store.Path != "" {
		return badKey("store.url", "store.url and store.path are both set; give one: url for PostgreSQL, path for a SQLite file")
	}
	if u := strings.ToLower(c.Store.URL); u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		return badKey("store.url", "%q is not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE (a SQLite file goes in store.path)", redactURL(c.Store.URL))
	}
	for i, s := range c.Polling.Sources {
		if s.System != "github" && s.System != "jira" {
			return badKey(fmt.Sprintf("polling.sources[%d].system", i), "%q is not one of github, jira", s.System)
		}
	}
	if _, err := parseStuckAfter(c.Notify.StuckAfter); err != nil {
		return badKey("notify.stuckAfter", "%v", err)
	}
	if err := c.validateSessions(); err != nil {
		return err
	}
	if err := c.MCP.HTTP.OAuth.validate(); err != nil {
		return err
	}
	if err := c.Webhooks.validate(); err != nil {
		return err
	}
	return c.Critic.Validate()
}

// parseStuckAfter reads notify.stuckAfter: a duration, "0" for never ("" is
// the default, 30m).
func parseStuckAfter(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	switch v {
	case "":
		return 30 * time.Minute, nil
	case "0":
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration; give one such as 30m or 2h, or 0 to never notify", v)
	}
	return d, nil
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
