// Package github is the GitHub provider (github.com and GitHub Enterprise
// Server), built on google/go-github. Requests go through the shared
// retrying transport (internal/httpx): primary and secondary rate limits
// are honoured, 5xx storms are retried with bounded backoff, and comment
// listings are conditional so an idle poll costs no quota.
package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/httpx"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// System is the provider name.
const System = "github"

// DefaultBaseURL is the github.com REST root.
const DefaultBaseURL = "https://api.github.com/"

// Options configures New.
type Options struct {
	// BaseURL is the REST root: https://api.github.com/ (default) or
	// https://HOST/api/v3/ for GitHub Enterprise Server.
	BaseURL string
	// Token authenticates every request (Bearer). Empty means anonymous.
	Token string
	// ClientOptions are the HTTP client's: transport, retries, timeouts,
	// the page cache and the logger.
	httpx.ClientOptions
}

// Provider is the GitHub implementation of integrations.Provider.
type Provider struct {
	client    *gh.Client
	transport *httpx.Transport
	host      string
	redact    *httpx.Redactor
	sleep     func(context.Context, time.Duration) error
	maxWait   time.Duration
	now       func() time.Time
	gqlOff    gqlRelationsOff
}

var _ integrations.Provider = (*Provider)(nil)
var _ integrations.LabelEnsurer = (*Provider)(nil)
var _ integrations.PullRequestLinker = (*Provider)(nil)

// listingPath selects the reads made conditional (ETag / If-None-Match): a
// repository's issues, and an issue itself, its comments, sub-issues,
// parent and dependencies, so re-reading an unchanged dependency graph
// every cycle costs no quota.
var listingPath = lazyre.New(`/repos/[^/]+/[^/]+/issues(/[0-9]+(/(comments|sub_issues|parent|dependencies/blocked_by|dependencies/blocking))?)?$`)

// New builds a provider. BaseURL must be an http(s) URL.
func New(opts Options) (*Provider, error) {
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("github base URL %q is not an http(s) URL (integrations.github.baseUrl; GitHub Enterprise uses https://HOST/api/v3/)", base)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	maxWait := opts.MaxWait
	if maxWait <= 0 {
		maxWait = httpx.DefaultMaxWait
	}
	sleep := httpx.SleepFunc(opts.Sleep)
	if sleep == nil {
		sleep = httpx.SleepContext
	}
	tr := opts.Transport(System, func(r *http.Request) bool { return conditionalListing(r.URL.Path) })
	client := gh.NewClient(&http.Client{Transport: tr})
	if opts.Token != "" {
		client = client.WithAuthToken(opts.Token)
	}
	client.BaseURL = u
	client.UserAgent = "the-loop"
	return &Provider{
		client:    client,
		transport: tr,
		host:      normalHost(u.Host),
		redact:    httpx.NewRedactor(opts.Token),
		sleep:     sleep,
		maxWait:   maxWait,
		now:       time.Now,
	}, nil
}

// Name returns "github".
func (p *Provider) Name() string { return System }

// Host is the GitHub host the provider talks to, as refs carry it: "" for
// github.com, else the Enterprise server's host (with its port, if any).
func (p *Provider) Host() string { return p.host }

// Operations lists everything the GitHub provider implements.
func (p *Provider) Operations() []integrations.Op {
	return []integrations.Op{
		integrations.OpGetIssue, integrations.OpCreateIssue, integrations.OpEditIssue,
		integrations.OpListComments, integrations.OpCreateComment, integrations.OpEditComment,
		integrations.OpAddLabels, integrations.OpRemoveLabel, integrations.OpEnsureLabels,
		integrations.OpAddReaction, integrations.OpCreateBranch, integrations.OpCreatePullRequest,
		integrations.OpGetPullRequest, integrations.OpReadFile, integrations.OpLinkPullRequest,
		integrations.OpListOpenIssues, integrations.OpReadRelations,
		integrations.OpOpenPullRequest, integrations.OpListPullRequests, integrations.OpListPullRequestFiles,
		integrations.OpListReviews, integrations.OpListReviewComments, integrations.OpReadChecks,
		integrations.OpListReviewThreads, integrations.OpReadCheckDetails,
	}
}

// Stats reports the transport counters (requests sent, retries, 304s).
func (p *Provider) Stats() httpx.Stats { return p.transport.Stats() }

// ListProjects is a Jira operation; GitHub does not implement it.
func (p *Provider) ListProjects(context.Context) ([]string, error) {
	return nil, fmt.Errorf("github %s: %w", integrations.OpListProjects, integrations.ErrUnsupported)
}

// checkRef refuses a ref that is not a GitHub one for this provider's host.
func (p *Provider) checkRef(op integrations.Op, ref integrations.Ref) error {
	if ref.System != "" && ref.System != System {
		return integrations.Invalidf(System, op, "ref %s is not a GitHub one", ref)
	}
	if ref.Host != "" && ref.Host != p.host {
		return integrations.Invalidf(System, op, "ref %s is on host %s but the provider talks to %s (integrations.github.baseUrl)", ref, ref.Host, hostName(p.host))
	}
	if _, _, err := ParseRepo(ref.Owner + "/" + ref.Repo); err != nil {
		return integrations.Invalidf(System, op, "%v", err)
	}
	if ref.Number <= 0 {
		return integrations.Invalidf(System, op, "ref %s has no issue number", ref)
	}
	return nil
}

func hostName(h string) string {
	if h == "" {
		return "github.com"
	}
	return h
}

func target(ref integrations.Ref) string {
	return fmt.Sprintf("%s/%s#%d", ref.Owner, ref.Repo, ref.Number)
}

// call runs fn, waiting once for go-github's own "limit still exhausted"
// guard (which answers without sending) when the reset is within MaxWait,
// and maps the final error.
func (p *Provider) call(ctx context.Context, op integrations.Op, tgt string, fn func(context.Context) error) error {
	err := fn(ctx)
	if wait, ok := p.localLimitWait(err); ok {
		if serr := p.sleep(ctx, wait); serr != nil {
			return p.wrap(op, tgt, serr)
		}
		err = fn(ctx)
	}
	return p.wrap(op, tgt, err)
}

// limits are GitHub's rules for comments and labels the loop writes.
var limits = integrations.Limits{System: System, Display: "GitHub", MaxComment: maxCommentLen, MaxLabel: maxLabelLen}
