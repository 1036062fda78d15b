package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
)

// ghTimeout bounds `gh auth token`.
const ghTimeout = 15 * time.Second

// FromConfig builds the provider from integrations.github. The token comes
// from the environment variable named by tokenEnv; with tokenSource: gh and
// that variable empty, from `gh auth token` (run directly, never through a
// shell). A missing token is an error naming the variable and both fixes.
func FromConfig(cfg config.GitHub, getenv func(string) string) (*Provider, error) {
	return fromConfig(cfg, getenv, Options{})
}

// FromConfigWith is FromConfig with extra options (HTTP client, logger,
// retry bounds); BaseURL and Token always come from the config.
func FromConfigWith(cfg config.GitHub, getenv func(string) string, opts Options) (*Provider, error) {
	return fromConfig(cfg, getenv, opts)
}

func fromConfig(cfg config.GitHub, getenv func(string) string, opts Options) (*Provider, error) {
	envName := cfg.TokenEnv
	if envName == "" {
		envName = "GITHUB_TOKEN"
	}
	if !config.IsEnvName(envName) {
		// Never echo it: a token pasted here instead of a variable name.
		return nil, fmt.Errorf("github token: integrations.github.tokenEnv does not look like an environment variable name (the value is not shown, in case it is the token itself); put the token in a variable such as GITHUB_TOKEN and name that variable")
	}
	token := strings.TrimSpace(getenv(envName))
	if token == "" {
		switch cfg.TokenSource {
		case "gh":
			t, err := ghAuthToken(cfg)
			if err != nil {
				return nil, fmt.Errorf("github token: %s is empty and %w; set %s, or run `gh auth login`", envName, err, envName)
			}
			token = t
		default:
			return nil, fmt.Errorf("github token: the environment variable %s (integrations.github.tokenEnv) is empty; set it, or set integrations.github.tokenSource: gh to use `gh auth token`", envName)
		}
	}
	opts.BaseURL = cfg.BaseURL
	opts.Token = token
	return New(opts)
}

// ghAuthToken runs `gh auth token [--hostname HOST]`. Neither its output nor
// its stderr (which can hold the token) reaches an error.
func ghAuthToken(cfg config.GitHub) (string, error) {
	bin := cfg.GHBinary
	if bin == "" {
		bin = "gh"
	}
	args := []string{"auth", "token"}
	if host := enterpriseHost(cfg.BaseURL); host != "" {
		args = append(args, "--hostname", host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ghTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, io.Discard
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) || errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s (integrations.github.ghBinary) was not found on PATH", bin)
		}
		var exit *exec.ExitError
		status := "it did not finish"
		if errors.As(err, &exit) {
			status = fmt.Sprintf("exit status %d", exit.ExitCode())
		}
		return "", fmt.Errorf("`%s auth token` failed (%s); run `%s auth status` to see why", bin, status, bin)
	}
	token := strings.TrimSpace(stdout.String())
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("`%s auth token` printed no single token", bin)
	}
	return token, nil
}

// enterpriseHost is the GitHub Enterprise host of a base URL ("" for
// github.com).
func enterpriseHost(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return normalHost(u.Hostname())
}
