// Package providertest is the contract every ticket-system provider must
// meet, and the loopback fakes it runs against. The fakes are httptest
// servers speaking the systems' public REST shapes (paths, headers, JSON
// field names), so the real client libraries talk to them unmodified through
// their base-URL options.
package providertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
)

// Issue is a ticket as a fake stores it.
type Issue struct {
	Key       string // owner/repo#n or KEY-n
	Number    int
	Title     string
	Body      string
	State     string
	Author    string
	Labels    []string
	IssueType string // jira
	Parent    string // jira
	Reactions []string
	// StateReason is GitHub's state_reason of a closed issue; Resolution is
	// Jira's resolution of a Done one.
	StateReason string
	Resolution  string
	// Updated moves whenever the ticket changes: a comment is added or
	// edited, a label added or removed, the body edited (GitHub's
	// updated_at).
	Updated time.Time
}

// Comment is a stored comment. Author is the login a provider must report.
type Comment struct {
	ID          int64
	Author      string
	Association string
	Body        string
	Created     time.Time
	Updated     time.Time
	Reactions   []string
	// Revisions are every body the comment had, oldest first (its body
	// as posted, then each edit): what a reader of the ticket saw meanwhile.
	Revisions []string
}

// setBody edits c, keeping its earlier body among its revisions.
func (c *Comment) setBody(body string) {
	c.Body = body
	c.Revisions = append(c.Revisions, body)
}

// Request is one request the fake received.
type Request struct {
	Method      string
	Path        string
	Query       string
	IfNoneMatch string
	Status      int
}

// canned is an injected answer for the next request.
type canned struct {
	status  int
	headers map[string]string
	body    string
	// trickle sends the headers at once and then the body one byte at a
	// time, never finishing (until the client goes away).
	trickle bool
}

// Server is a fake ticket system. Its state can be seeded and inspected,
// and failures injected, from tests.
type Server struct {
	system string
	auth   string // jira: cloud or datacenter
	srv    *httptest.Server
	prefix string // path prefix of the API root

	mu          sync.Mutex
	checksRead  func(repo, sha string) // OnChecksRead
	token       string
	email       string
	bot         string
	projects    []string
	issues      map[string]*Issue
	comments    map[string][]*Comment
	nextID      int64
	nextNumber  map[string]int
	labelDefs   map[string]map[string]string // repo -> name -> color
	labelCreate int
	refs        map[string]string // repo + " " + ref -> sha
	pulls       map[string]*pull
	flow        *flowStore        // the pull-request flow's state: statuses, check runs, remote links (fake_github_pulls.go)
	files       map[string]string // repo + "@" + ref + ":" + path
	pageSize    int
	queue       []canned
	reject      *[2]string
	echo        bool
	quota       int
	quotaReset  time.Duration
	requests    []Request
	rel         relationStore
	changes     int64
	// clock, when set, is the time the server stamps (see SetClock).
	clock func() time.Time
}

func newServer(system string) *Server {
	s := &Server{
		system:     system,
		token:      "tok_" + system + "_0123456789abcdef",
		email:      "loop-bot@example.com",
		bot:        "the-loop-bot",
		issues:     map[string]*Issue{},
		comments:   map[string][]*Comment{},
		nextID:     1000,
		nextNumber: map[string]int{},
		labelDefs:  map[string]map[string]string{},
		refs:       map[string]string{},
		pulls:      map[string]*pull{},
		files:      map[string]string{},
		pageSize:   100,
		quota:      5000,
		quotaReset: time.Hour,
	}
	return s
}

func (s *Server) start(h http.Handler) {
	s.srv = httptest.NewServer(s.middleware(h))
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// System is "github" or "jira".
func (s *Server) System() string { return s.system }

// Auth is the Jira auth mode ("" for GitHub).
func (s *Server) Auth() string { return s.auth }

// URL is the base URL a provider is configured with.
func (s *Server) URL() string { return s.srv.URL + s.prefix + "/" }

// Token is the credential the fake accepts.
func (s *Server) Token() string { return s.token }

// Email is the Jira Cloud account email the fake accepts.
func (s *Server) Email() string { return s.email }

// BotLogin is the login the fake reports for comments the provider posts.
func (s *Server) BotLogin() string { return s.bot }

// Projects are the Jira projects the fake has (nil for GitHub).
func (s *Server) Projects() []string { return slices.Clone(s.projects) }

// Issue returns the stored ticket ref names.
func (s *Server) Issue(ref integrations.Ref) (Issue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.issues[keyOf(ref)]
	if !ok {
		return Issue{}, false
	}
	cp := *is
	cp.Labels = slices.Clone(is.Labels)
	cp.Reactions = slices.Clone(is.Reactions)
	return cp, true
}

// Comments returns the stored comments of ref, oldest first.
func (s *Server) Comments(ref integrations.Ref) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments[keyOf(ref)] {
		cp := *c
		cp.Reactions, cp.Revisions = slices.Clone(c.Reactions), slices.Clone(c.Revisions)
		out = append(out, cp)
	}
	return out
}

// AddComment stores a comment by author on ref, as if a person posted it.
func (s *Server) AddComment(ref integrations.Ref, author, association, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.addComment(keyOf(ref), author, association, body)
}

// SetClock makes the server stamp every time it records (a comment's
// creation and edits, an issue's and a pull request's update) with now,
// truncated to the second as GitHub's timestamps are, instead of its own
// clock (2030 onwards, one step per change). A test sets it to run the
// tracker's clock ahead of the loop's, behind it, or stopped.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = now
}

// at is the time of the change numbered n in steps of unit, or the set
// clock's time (under s.mu).
func (s *Server) at(n int64, unit time.Duration) time.Time {
	if s.clock != nil {
		return s.clock().UTC().Truncate(time.Second)
	}
	return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * unit)
}

// edited is the updated time of an edit of what was last updated at
// (under s.mu).
func (s *Server) edited(at time.Time) time.Time {
	if s.clock != nil {
		return s.at(0, 0)
	}
	return at.Add(time.Minute)
}

func (s *Server) addComment(key, author, association, body string) *Comment {
	s.nextID++
	at := s.at(s.nextID, time.Minute)
	c := &Comment{ID: s.nextID, Author: author, Association: association, Body: body, Created: at, Updated: at, Revisions: []string{body}}
	s.comments[key] = append(s.comments[key], c)
	s.touch(key)
	return c
}

// EditComment replaces the body of comment id on ref as if its author
// edited it in the web interface: the updated time moves past the created
// time, as GitHub's updated_at and Jira's updated do.
func (s *Server) EditComment(ref integrations.Ref, id int64, body string) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments[keyOf(ref)] {
		if c.ID == id {
			c.setBody(body)
			c.Updated = s.edited(c.Updated)
			s.touch(keyOf(ref))
			return *c, true
		}
	}
	return Comment{}, false
}

// touch moves the updated time of the ticket under key (under s.mu).
func (s *Server) touch(key string) {
	s.changes++
	if is, ok := s.issues[key]; ok {
		is.Updated = s.at(s.changes, time.Second)
	}
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestCount is len(Requests()).
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// QuotaRemaining is the fake's primary rate-limit budget (GitHub).
func (s *Server) QuotaRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quota
}

func keyOf(ref integrations.Ref) string {
	if ref.System == "jira" || ref.Key != "" && ref.Owner == "" {
		return ref.Key
	}
	return fmt.Sprintf("%s/%s#%d", ref.Owner, ref.Repo, ref.Number)
}

func removeLabel(labels []string, name string) ([]string, bool) {
	i := slices.Index(labels, name)
	if i < 0 {
		return labels, false
	}
	return slices.Delete(labels, i, i+1), true
}

func addLabels(labels []string, add ...string) []string {
	for _, l := range add {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	return labels
}
