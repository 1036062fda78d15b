package github_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
)

func newFromFake(t *testing.T, f *providertest.Server, env providertest.Env) *github.Provider {
	t.Helper()
	p, err := github.New(github.Options{
		BaseURL:       f.URL(),
		Token:         env.Token,
		ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}, Sleep: env.Sleep, MaxRetries: env.MaxRetries, Logger: env.Logger},
	})
	require.NoError(t, err)
	return p
}

func TestGitHubContract(t *testing.T) {
	providertest.Run(t, providertest.Target{
		NewFake: func(t *testing.T) *providertest.Server { return providertest.NewGitHub(t) },
		New: func(t *testing.T, f *providertest.Server, env providertest.Env) integrations.Provider {
			return newFromFake(t, f, env)
		},
	})
}
