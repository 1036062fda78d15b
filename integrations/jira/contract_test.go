package jira_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
)

func newFromFake(t *testing.T, f *providertest.Server, env providertest.Env) *jira.Provider {
	t.Helper()
	p, err := jira.New(jira.Options{
		BaseURL:       f.URL(),
		Auth:          f.Auth(),
		Email:         f.Email(),
		Token:         env.Token,
		Projects:      f.Projects(),
		ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}, Sleep: env.Sleep, MaxRetries: env.MaxRetries, Logger: env.Logger},
	})
	require.NoError(t, err)
	return p
}

func TestJiraContract(t *testing.T) {
	for _, auth := range []string{jira.AuthCloud, jira.AuthDataCenter} {
		t.Run(auth, func(t *testing.T) {
			providertest.Run(t, providertest.Target{
				NewFake: func(t *testing.T) *providertest.Server { return providertest.NewJira(t, auth) },
				New: func(t *testing.T, f *providertest.Server, env providertest.Env) integrations.Provider {
					return newFromFake(t, f, env)
				},
			})
		})
	}
}
