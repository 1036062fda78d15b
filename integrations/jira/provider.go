// Package jira is the Jira provider (Cloud and Data Center), built on
// andygrunwald/go-jira: its auth transports, request builder and Do carry
// every call, with the REST v2 JSON written out where go-jira's types lack a
// field (parent) or hide the error body. Keys are validated before any
// request; requests go through the shared retrying transport.
package jira

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	jira "github.com/andygrunwald/go-jira"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/httpx"
)

// System is the provider name.
const System = "jira"

// Auth modes.
const (
	AuthCloud      = "cloud"
	AuthDataCenter = "datacenter"
)

// DefaultIssueType is used when a create names none.
const DefaultIssueType = "Task"

// Options configures New.
type Options struct {
	// BaseURL is the site root, e.g. https://example.atlassian.net/ or a Data
	// Center URL with its context path.
	BaseURL string
	// Auth is "cloud" (Email + API token, basic; the default) or
	// "datacenter" (personal access token, bearer).
	Auth  string
	Email string
	Token string
	// Projects are the project keys the loop may create issues in.
	Projects []string
	// ClientOptions are the HTTP client's: transport, retries, timeouts,
	// the page cache and the logger.
	httpx.ClientOptions
	// BlockingLinks are the issue links read as dependencies
	// (DefaultBlockingLinks when empty).
	BlockingLinks []BlockingLink
	// DoneResolutions are the resolutions that count as closed as done
	// (DefaultDoneResolutions when empty).
	DoneResolutions []string
}

// Provider is the Jira implementation of integrations.Provider.
type Provider struct {
	client    *jira.Client
	transport *httpx.Transport
	site      string // base URL with trailing slash
	auth      string
	projects  []string
	redact    *httpx.Redactor

	blocking        []BlockingLink
	doneResolutions []string
}

var _ integrations.Provider = (*Provider)(nil)

var commentListPath = regexp.MustCompile(`/rest/api/2/issue/[^/]+/comment$`)

// New builds a provider; credentials and project keys are checked here.
func New(opts Options) (*Provider, error) {
	u, err := url.Parse(opts.BaseURL)
	if opts.BaseURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("jira base URL %q is not an http(s) URL (integrations.jira.baseUrl, e.g. https://example.atlassian.net/)", opts.BaseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	auth := opts.Auth
	if auth == "" {
		auth = AuthCloud
	}
	for i, k := range opts.Projects {
		if err := ValidateProjectKey(k); err != nil {
			return nil, fmt.Errorf("integrations.jira.projects[%d]: %w", i, err)
		}
	}
	tr := opts.Transport(System, func(r *http.Request) bool { return commentListPath.MatchString(r.URL.Path) })
	redact := httpx.NewRedactor(opts.Token)
	var hc *http.Client
	switch auth {
	case AuthCloud:
		if opts.Email == "" || opts.Token == "" {
			return nil, fmt.Errorf("jira cloud auth needs an account email and an API token (integrations.jira.emailEnv, integrations.jira.tokenEnv), or use integrations.jira.auth: datacenter with a personal access token")
		}
		redact.AddBasic(opts.Email, opts.Token)
		hc = (&jira.BasicAuthTransport{Username: opts.Email, Password: opts.Token, Transport: tr}).Client()
	case AuthDataCenter:
		if opts.Token == "" {
			return nil, fmt.Errorf("jira datacenter auth needs a personal access token (integrations.jira.tokenEnv)")
		}
		hc = (&jira.BearerAuthTransport{Token: opts.Token, Transport: tr}).Client()
	default:
		return nil, fmt.Errorf("integrations.jira.auth: %q is not one of cloud, datacenter", opts.Auth)
	}
	client, err := jira.NewClient(hc, u.String())
	if err != nil {
		return nil, fmt.Errorf("jira client for %s: %w", u.Redacted(), err)
	}
	blocking := slices.Clone(opts.BlockingLinks)
	if len(blocking) == 0 {
		blocking = DefaultBlockingLinks
	}
	for i, b := range blocking {
		if strings.TrimSpace(b.Phrase) == "" {
			return nil, fmt.Errorf("integrations.jira.blockingLinks[%d].phrase is empty; name the link description that means \"waits for\", e.g. \"is blocked by\"", i)
		}
	}
	done := slices.Clone(opts.DoneResolutions)
	if len(done) == 0 {
		done = DefaultDoneResolutions
	}
	return &Provider{
		client:          client,
		transport:       tr,
		site:            u.String(),
		auth:            auth,
		projects:        slices.Clone(opts.Projects),
		redact:          redact,
		blocking:        blocking,
		doneResolutions: done,
	}, nil
}

// Name returns "jira".
func (p *Provider) Name() string { return System }

// Operations lists what the Jira provider implements.
func (p *Provider) Operations() []integrations.Op {
	return []integrations.Op{
		integrations.OpGetIssue, integrations.OpCreateIssue, integrations.OpEditIssue,
		integrations.OpListComments, integrations.OpCreateComment, integrations.OpEditComment,
		integrations.OpAddLabels, integrations.OpRemoveLabel, integrations.OpListProjects,
		integrations.OpListOpenIssues, integrations.OpReadRelations, integrations.OpLinkTicket,
	}
}

// Stats reports the transport counters (requests sent, retries, 304s).
func (p *Provider) Stats() httpx.Stats { return p.transport.Stats() }

// ListProjects returns the configured project keys (no request is made).
func (p *Provider) ListProjects(context.Context) ([]string, error) {
	return slices.Clone(p.projects), nil
}

// BrowseURL is the web URL of an issue.
func (p *Provider) BrowseURL(key string) string { return p.site + "browse/" + key }

func unsupported(op integrations.Op) error {
	return fmt.Errorf("jira %s: %w", op, integrations.ErrUnsupported)
}

// AddReaction is not available on Jira.
func (p *Provider) AddReaction(context.Context, integrations.Ref, int64, string) error {
	return unsupported(integrations.OpAddReaction)
}

// CreateBranch is a GitHub operation.
func (p *Provider) CreateBranch(context.Context, string, string, string, string) error {
	return unsupported(integrations.OpCreateBranch)
}

// CreatePullRequest is a GitHub operation.
func (p *Provider) CreatePullRequest(context.Context, integrations.NewPullRequest) (integrations.PullRequest, error) {
	return integrations.PullRequest{}, unsupported(integrations.OpCreatePullRequest)
}

// GetPullRequest is a GitHub operation.
func (p *Provider) GetPullRequest(context.Context, string, string, int) (integrations.PullRequest, error) {
	return integrations.PullRequest{}, unsupported(integrations.OpGetPullRequest)
}

// ReadFile is a GitHub operation.
func (p *Provider) ReadFile(context.Context, string, string, string, string) ([]byte, error) {
	return nil, unsupported(integrations.OpReadFile)
}

// checkRef refuses a ref that is not a valid Jira issue key.
func (p *Provider) checkRef(op integrations.Op, ref integrations.Ref) error {
	if ref.System != "" && ref.System != System {
		return integrations.Invalidf(System, op, "ref %s is not a Jira one", ref)
	}
	if err := ValidateIssueKey(ref.Key); err != nil {
		return integrations.Invalidf(System, op, "%v", err)
	}
	return nil
}

// limits are Jira's rules for comments and labels the loop writes.
var limits = integrations.Limits{System: System, Display: "Jira", MaxComment: maxCommentLen, MaxLabel: maxLabelLen, NoSpaceInLabels: true}
