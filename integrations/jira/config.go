package jira

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// FromConfig builds the provider from integrations.jira, reading the
// credentials from the environment variables the config names (cloud:
// emailEnv and tokenEnv; datacenter: tokenEnv). A missing value is an error
// naming the variable and the fix; no value is ever printed.
func FromConfig(cfg config.Jira, getenv func(string) string) (*Provider, error) {
	return FromConfigWith(cfg, getenv, Options{})
}

// FromConfigWith is FromConfig with extra options (HTTP client, logger,
// retry bounds); the site, auth mode, credentials and projects always come
// from the config.
func FromConfigWith(cfg config.Jira, getenv func(string) string, opts Options) (*Provider, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, fmt.Errorf("integrations.jira.baseUrl is empty; set it to the Jira site (https://example.atlassian.net/ or the Data Center URL)")
	}
	auth := cfg.Auth
	if auth == "" {
		auth = AuthCloud
	}
	tokenEnv := orDefault(cfg.TokenEnv, "JIRA_API_TOKEN")
	for key, v := range map[string]string{"integrations.jira.tokenEnv": tokenEnv, "integrations.jira.emailEnv": orDefault(cfg.EmailEnv, "JIRA_EMAIL")} {
		if !config.IsEnvName(v) {
			// Never echo it: a credential pasted here instead of a variable name.
			return nil, fmt.Errorf("jira credentials: %s does not look like an environment variable name (the value is not shown, in case it is the credential itself); put it in a variable and name that variable", key)
		}
	}
	token := strings.TrimSpace(getenv(tokenEnv))
	switch auth {
	case AuthCloud:
		emailEnv := orDefault(cfg.EmailEnv, "JIRA_EMAIL")
		email := strings.TrimSpace(getenv(emailEnv))
		if email == "" {
			return nil, fmt.Errorf("jira credentials: the environment variable %s (integrations.jira.emailEnv) is empty; set it to the Atlassian account email, or use integrations.jira.auth: datacenter with a personal access token", emailEnv)
		}
		if token == "" {
			return nil, fmt.Errorf("jira credentials: the environment variable %s (integrations.jira.tokenEnv) is empty; set it to an Atlassian API token", tokenEnv)
		}
		opts.Email = email
	case AuthDataCenter:
		if token == "" {
			return nil, fmt.Errorf("jira credentials: the environment variable %s (integrations.jira.tokenEnv) is empty; set it to a Data Center personal access token", tokenEnv)
		}
	default:
		return nil, fmt.Errorf("integrations.jira.auth: %q is not one of cloud, datacenter", cfg.Auth)
	}
	opts.BaseURL = cfg.BaseURL
	opts.Auth = auth
	opts.Token = token
	opts.Projects = cfg.Projects
	opts.BlockingLinks = nil
	for _, b := range cfg.BlockingLinks {
		opts.BlockingLinks = append(opts.BlockingLinks, BlockingLink{Type: b.Type, Phrase: b.Phrase})
	}
	opts.DoneResolutions = cfg.DoneResolutions
	return New(opts)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
