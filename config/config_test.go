package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDefaults(t *testing.T) {
	c, err := Parse(nil)
	require.NoError(t, err)
	assert.Equal(t, "https://api.github.com/", c.Integrations.GitHub.BaseURL)
	assert.Equal(t, "GITHUB_TOKEN", c.Integrations.GitHub.TokenEnv)
	assert.Equal(t, "cloud", c.Integrations.Jira.Auth)
	assert.Equal(t, "THE_LOOP_MCP_TOKEN", c.MCP.HTTP.TokenEnv)
	assert.Equal(t, "cross-repository", c.Routing.SessionPerPR)
	assert.Empty(t, c.Routing.AuthorizedUsers, "nobody is authorized by default")
	assert.Equal(t, 60, c.Polling.IntervalSeconds)
	assert.Equal(t, 600, c.Polling.CycleTimeoutSeconds)
	assert.Equal(t, 60, c.Integrations.RequestTimeoutSeconds)
	assert.Equal(t, 256, c.MCP.HTTP.MaxConnections)
	assert.Equal(t, 64, c.MCP.HTTP.MaxConnectionsPerClient)
	assert.Equal(t, 262144, c.MCP.MaxArgumentBytes)
	assert.True(t, c.DependenciesOn(), "dependencies are read and enforced by default")
	assert.Equal(t, 500, c.DAG.MaxItems)
	assert.Equal(t, 3, c.CI.MaxFixAttempts, "three CI fix rounds, then the item escalates")
	assert.Equal(t, 30, c.Polling.LeaseSeconds, "an item's lease lasts 30 s unrenewed")
	assert.Empty(t, c.Store.Location(), "the store's own default: a SQLite file")
}

// store.url names a PostgreSQL store, store.path a SQLite file; the
// location is whichever is given.
func TestStoreLocation(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"store:\n  path: /srv/loop/state.db\n", "/srv/loop/state.db"},
		{"store:\n  url: postgres://loop@db.internal:5432/loop?sslmode=verify-full\n", "postgres://loop@db.internal:5432/loop?sslmode=verify-full"},
		{"store:\n  url: postgresql://loop@db/loop\n", "postgresql://loop@db/loop"},
		{"polling:\n  leaseSeconds: 90\n", ""},
	} {
		c, err := Parse([]byte(tt.doc))
		require.NoError(t, err, tt.doc)
		assert.Equal(t, tt.want, c.Store.Location(), tt.doc)
	}
	c, err := Parse([]byte("polling:\n  leaseSeconds: 90\n"))
	require.NoError(t, err)
	assert.Equal(t, 90, c.Polling.LeaseSeconds)
}

func TestParseRefusesBadInputNamingKeyAndLine(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"unknown top-level key", "integration:\n  github: {}\n", "line 1: integration: field integration not found"},
		{"unknown nested key", "routing:\n  authorizedUsers: [a]\n  autExecuteLabel: x\n", "line 3: routing.autExecuteLabel: field autExecuteLabel not found"},
		{"wrong type", "polling:\n  intervalSeconds: soon\n", "line 2: polling.intervalSeconds: cannot unmarshal"},
		{"list where a string is expected", "integrations:\n  github:\n    baseUrl: [a]\n", "line 3: integrations.github.baseUrl: cannot unmarshal"},
		{"bad jira auth", "integrations:\n  jira:\n    auth: oauth\n", `line 3: integrations.jira.auth: "oauth" is not one of cloud, datacenter`},
		{"bad session mode", "routing:\n  sessionPerPr: sometimes\n", "line 2: routing.sessionPerPr"},
		{"unknown control command", "routing:\n  control:\n    keywords:\n      deploy: the-loop deploy\n", "line 4: routing.control.keywords.deploy: unknown command"},
		{"bad poll system", "polling:\n  sources:\n    - system: gitlab\n", "line 3: polling.sources[0].system"},
		{"blocking link without a phrase", "integrations:\n  jira:\n    blockingLinks:\n      - type: Blocks\n", "integrations.jira.blockingLinks[0].phrase: is empty"},
		{"not YAML at all", "routing: [\n", "not valid YAML"},
		{"negative request timeout", "integrations:\n  requestTimeoutSeconds: -1\n", "integrations.requestTimeoutSeconds: -1 is negative"},
		{"negative connection cap", "mcp:\n  http:\n    maxConnectionsPerClient: -5\n", "mcp.http.maxConnectionsPerClient: -5 is negative"},
		{"negative argument cap", "mcp:\n  maxArgumentBytes: -1\n", "line 2: mcp.maxArgumentBytes: -1 is negative"},
		{"a token in the file", "integrations:\n  github:\n    token: ghp_x\n", "field token not found"},
		{"negative dag bound", "dag:\n  maxItems: -1\n", "line 2: dag.maxItems: -1 is negative"},
		{"negative fix bound", "ci:\n  maxFixAttempts: -2\n", "line 2: ci.maxFixAttempts: -2 is negative"},
		{"dag switch not a boolean", "dag:\n  enabled: sometimes\n", "line 2: dag.enabled: cannot unmarshal"},
		{"unknown critic key", "critics:\n  - name: codex\n    command: [codex]\n    shell: true\n", "line 4: critics[0].shell: field shell not found"},
		{"critic without a command", "critics:\n  - name: codex\n", "line 2: critics[0].command: is empty"},
		{"relative critic program", "critics:\n  - name: codex\n    command: [codex]\n  - name: local\n    command: [./bin/review, -]\n",
			`line 5: critics[1].command[0]: "./bin/review" is a relative path`},
		{"secret passed to a critic", "critics:\n  - name: codex\n    command: [codex, exec, -]\n    env:\n      - HOME\n      - OPENAI_API_KEY\n",
			"line 6: critics[0].env[1]: OPENAI_API_KEY looks like it holds a secret"},
		{"negative review cap", "reviews:\n  selfReviewCount: 2\n  criticReviewCount: -2\n", "line 3: reviews.criticReviewCount: -2 is negative"},
		{"critic review cap of the wrong type", "reviews:\n  criticReviewCount: many\n", "line 2: reviews.criticReviewCount: cannot unmarshal"},
		{"negative lease", "polling:\n  leaseSeconds: -30\n", "line 2: polling.leaseSeconds: -30 is negative"},
		{"store url and path both", "store:\n  path: /var/lib/the-loop/state.db\n  url: postgres://loop@db:5432/loop\n",
			"store.url: store.url and store.path are both set; give one: url for PostgreSQL, path for a SQLite file"},
		{"store url of another database", "store:\n  url: mysql://loop:ghp_x@db/loop\n",
			`store.url: "mysql://loop:xxxxx@db/loop" is not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE (a SQLite file goes in store.path)`},
		{"web client without an issuer", "mcp:\n  http:\n    oauth:\n      webClientId: the-loop-ui\n",
			"line 4: mcp.http.oauth.webClientId: is set but mcp.http.oauth.issuer is not"},
		{"web client without a resource url", "mcp:\n  http:\n    oauth:\n      issuer: https://id.example.com\n      webClientId: the-loop-ui\n",
			"mcp.http.oauth.webClientId: is set but mcp.http.oauth.resourceUrl is not"},
		{"web client secret without a client", "mcp:\n  http:\n    oauth:\n      issuer: https://id.example.com\n      webClientSecretEnv: UI_SECRET\n",
			"mcp.http.oauth.webClientSecretEnv: is set but mcp.http.oauth.webClientId is not"},
		{"web client secret in the file", "mcp:\n  http:\n    oauth:\n      webClientId: ui\n      webClientSecretEnv: ghp_x/y\n",
			"mcp.http.oauth.webClientSecretEnv: does not look like an environment variable name"},
		{"store url that is a file", "store:\n  url: /var/lib/the-loop/state.db\n", "store.url: \"/var/lib/the-loop/state.db\" is not a PostgreSQL URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "ghp_x", "values are never echoed back")
		})
	}
}

func TestParseCriticsAndReviews(t *testing.T) {
	c, err := Parse([]byte("critics:\n  - name: codex\n    command: [codex, exec, -]\n    timeoutSeconds: 120\nreviews:\n  criticReviewCount: 2\n"))
	require.NoError(t, err)
	require.Len(t, c.Critic.Critics, 1)
	assert.Equal(t, "codex", c.Critic.Critics[0].Name)
	assert.Equal(t, 120, c.Critic.Critics[0].TimeoutSeconds)
	assert.Equal(t, DefaultCriticMaxOutputBytes, c.Critic.Critics[0].MaxOutputBytes, "defaults fill what the operator left out")
	assert.Equal(t, Reviews{SelfReviewCount: 3, CriticReviewCount: 2}, c.Critic.Reviews)

	d, err := Parse(nil)
	require.NoError(t, err)
	assert.Empty(t, d.Critic.Critics, "no critic exists unless the operator configures one")
	assert.Equal(t, Reviews{SelfReviewCount: 3, CriticReviewCount: 3}, d.Critic.Reviews)
	assert.Equal(t, d.Critic.Reviews, Default().Critic.Reviews)
}

func TestParseJiraDependencyKeys(t *testing.T) {
	c, err := Parse([]byte("integrations:\n  jira:\n    blockingLinks:\n      - {type: Dependency, phrase: is required by}\n      - phrase: depends on\n    doneResolutions: [Done, Shipped]\n"))
	require.NoError(t, err)
	assert.Equal(t, []JiraBlockingLink{{Type: "Dependency", Phrase: "is required by"}, {Phrase: "depends on"}}, c.Integrations.Jira.BlockingLinks)
	assert.Equal(t, []string{"Done", "Shipped"}, c.Integrations.Jira.DoneResolutions)
}

func TestParseDAGKeys(t *testing.T) {
	c, err := Parse([]byte("dag:\n  enabled: false\n  maxItems: 50\n"))
	require.NoError(t, err)
	assert.False(t, c.DependenciesOn())
	assert.Equal(t, 50, c.DAG.MaxItems)
}

func TestParseCIKeys(t *testing.T) {
	c, err := Parse([]byte("ci:\n  maxFixAttempts: 5\n"))
	require.NoError(t, err)
	assert.Equal(t, 5, c.CI.MaxFixAttempts)
	_, err = Parse([]byte("ci:\n  maxFixAtempts: 5\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "maxFixAtempts")
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "missing.yaml"), true)
	assert.ErrorContains(t, err, "missing.yaml", "an explicit path that does not exist is an error")
	c, err := Load(filepath.Join(dir, "missing.yaml"), false)
	require.NoError(t, err)
	assert.Equal(t, "GITHUB_TOKEN", c.Integrations.GitHub.TokenEnv, "a missing default file means defaults")

	p := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(p, []byte("routing:\n  authorizedUsers: [alice]\n  bogus: 1\n"), 0o600))
	_, err = Load(p, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), p)
	assert.Contains(t, err.Error(), "line 3")
}

func TestKeywords(t *testing.T) {
	c, err := Parse([]byte("routing:\n  control:\n    keywords:\n      execute: 'go go go'\n      stop: ''\n"))
	require.NoError(t, err)
	assert.Equal(t, "go go go", c.Keyword("execute"))
	assert.Equal(t, "", c.Keyword("stop"), "an empty keyword disables its command")
	assert.Equal(t, "the-loop start", c.Keyword("start"))
	off := false
	c.Routing.Control.Enabled = &off
	assert.Equal(t, "", c.Keyword("start"), "control disabled recognises nothing")
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(EnvConfig, "/etc/the-loop/c.yaml")
	assert.Equal(t, "/etc/the-loop/c.yaml", DefaultPath())
	t.Setenv(EnvConfig, "")
	t.Setenv("XDG_CONFIG_HOME", "/x")
	assert.Equal(t, "/x/the-loop/config.yaml", DefaultPath())
}

func TestWhereNamesTheFileLineAndKey(t *testing.T) {
	c, err := Parse([]byte("polling:\n  sources:\n    - system: github\n      repos: [o/r]\n      checkout: /srv/x\n"))
	require.NoError(t, err)
	c.Path = "/etc/the-loop/config.yaml"
	assert.Equal(t, "config /etc/the-loop/config.yaml line 5: polling.sources[0].checkout", c.Where("polling.sources[0].checkout"))
	assert.Equal(t, "config /etc/the-loop/config.yaml: routing.authorizedUsers", c.Where("routing.authorizedUsers"))
	assert.Equal(t, "the config: routing.authorizedUsers", Default().Where("routing.authorizedUsers"))
}
