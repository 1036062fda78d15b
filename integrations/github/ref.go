package github

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

// repoPattern is the OWNER/REPO shape accepted anywhere a repository is named.
var repoPattern = regexp.MustCompile(`^[\w.-]+/[\w.-]+$`)

// ParseRepo splits and validates OWNER/REPO.
func ParseRepo(s string) (owner, repo string, err error) {
	s = strings.TrimSpace(s)
	if !repoPattern.MatchString(s) {
		return "", "", fmt.Errorf("repository %q is not OWNER/REPO (letters, digits, '.', '-', '_')", s)
	}
	owner, repo, _ = strings.Cut(s, "/")
	for _, part := range []string{owner, repo} {
		if part == "." || part == ".." {
			return "", "", fmt.Errorf("repository %q: %q is not a valid owner or repository name", s, part)
		}
	}
	return owner, repo, nil
}

// ParseRef parses a GitHub ticket reference: github:OWNER/REPO#N,
// github:HOST/OWNER/REPO#N, OWNER/REPO#N, or an issue or pull request URL
// (https://HOST/OWNER/REPO/issues/N, .../pull/N). Host is empty for
// github.com.
func ParseRef(s string) (integrations.Ref, error) {
	in := strings.TrimSpace(s)
	if strings.HasPrefix(in, "https://") || strings.HasPrefix(in, "http://") {
		return parseURLRef(in)
	}
	rest := in
	if sys, after, ok := strings.Cut(in, ":"); ok {
		if sys != "github" {
			return integrations.Ref{}, fmt.Errorf("ref %q is not a GitHub one (want github:OWNER/REPO#N)", s)
		}
		rest = after
	}
	path, num, ok := strings.Cut(rest, "#")
	if !ok {
		return integrations.Ref{}, fmt.Errorf("ref %q has no #NUMBER (want github:OWNER/REPO#N)", s)
	}
	n, err := parseNumber(num)
	if err != nil {
		return integrations.Ref{}, fmt.Errorf("ref %q: %w", s, err)
	}
	host := ""
	if parts := strings.Split(path, "/"); len(parts) == 3 {
		host, path = parts[0], parts[1]+"/"+parts[2]
		if !validHost(host) {
			return integrations.Ref{}, fmt.Errorf("ref %q: %q is not a host name", s, host)
		}
	}
	owner, repo, err := ParseRepo(path)
	if err != nil {
		return integrations.Ref{}, fmt.Errorf("ref %q: %w", s, err)
	}
	return integrations.Ref{System: "github", Host: normalHost(host), Owner: owner, Repo: repo, Number: n}, nil
}

func parseURLRef(s string) (integrations.Ref, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return integrations.Ref{}, fmt.Errorf("ref %q is not a valid URL", s)
	}
	if !validHost(u.Host) {
		return integrations.Ref{}, fmt.Errorf("URL %q: %q is not a host name", s, u.Host)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 4 || (parts[2] != "issues" && parts[2] != "pull" && parts[2] != "pulls") {
		return integrations.Ref{}, fmt.Errorf("URL %q is not a GitHub issue or pull request (want https://HOST/OWNER/REPO/issues/N)", s)
	}
	owner, repo, err := ParseRepo(parts[0] + "/" + parts[1])
	if err != nil {
		return integrations.Ref{}, fmt.Errorf("URL %q: %w", s, err)
	}
	n, err := parseNumber(parts[3])
	if err != nil {
		return integrations.Ref{}, fmt.Errorf("URL %q: %w", s, err)
	}
	return integrations.Ref{System: "github", Host: normalHost(u.Host), Owner: owner, Repo: repo, Number: n}, nil
}

func parseNumber(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not an issue number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not an issue number", s)
	}
	return n, nil
}

var hostPattern = regexp.MustCompile(`^[A-Za-z0-9.-]+(:[0-9]+)?$`)

func validHost(h string) bool { return hostPattern.MatchString(h) && strings.Contains(h, ".") }

// normalHost maps github.com spellings to "" (the default host).
func normalHost(h string) string {
	switch strings.ToLower(h) {
	case "", "github.com", "www.github.com", "api.github.com":
		return ""
	}
	return strings.ToLower(h)
}

// IssueURL is the web URL of ref on host ("" for github.com).
func IssueURL(ref integrations.Ref) string {
	host := ref.Host
	if host == "" {
		host = "github.com"
	}
	return fmt.Sprintf("https://%s/%s/%s/issues/%d", host, ref.Owner, ref.Repo, ref.Number)
}
