// Package team_test checks the team example: its config is one the-loop
// accepts, on PostgreSQL with webhooks and the HTTP endpoint, and every
// variable it names is a credential the units hand over.
package team_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
)

// credentials are the credential names the unit files load.
func credentials(t *testing.T, paths ...string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	re := regexp.MustCompile(`(?m)^LoadCredential=([A-Za-z0-9_.-]+):`)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
	}
	return names
}

func TestTheTeamConfigIsAcceptedAndItsSecretsAreCredentials(t *testing.T) {
	b, err := os.ReadFile("config.yaml")
	require.NoError(t, err)
	cfg, err := config.Parse(b)
	require.NoError(t, err, "the example config is accepted as it is")
	assert.Regexp(t, `^postgres://`, cfg.Store.URL, "the team shares one PostgreSQL store")
	assert.Empty(t, cfg.Store.Path)
	assert.Positive(t, cfg.Polling.LeaseSeconds)
	require.Len(t, cfg.Polling.Sources, 1)
	assert.NotEmpty(t, cfg.Polling.Sources[0].Checkout)

	http := credentials(t, "../systemd/the-loop-http@.service", "the-loop-webhooks.conf", "../systemd/the-loop-postgres.conf")
	poller := credentials(t, "../systemd/the-loop-poller.service", "../systemd/the-loop-postgres.conf")
	assert.True(t, http[cfg.MCP.HTTP.TokenEnv], "the replicas load %s", cfg.MCP.HTTP.TokenEnv)
	assert.True(t, http[cfg.Webhooks.GitHub.SecretEnv], "the replicas load %s", cfg.Webhooks.GitHub.SecretEnv)
	assert.True(t, poller[cfg.Integrations.GitHub.TokenEnv], "the poller loads %s", cfg.Integrations.GitHub.TokenEnv)
	assert.True(t, http["pgpass"] && poller["pgpass"], "both find the database's password")

	for _, env := range []string{"http-a.env", "http-b.env"} {
		b, err := os.ReadFile(env)
		require.NoError(t, err)
		assert.Regexp(t, `(?m)^THE_LOOP_HTTP_ADDR=\S+:\d+$`, string(b), "%s names the replica's address", env)
	}
}
