package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

const testToken = "0123456789abcdef-web-token"

// hostile is text an attacker controls (a title, a comment, a node name
// in a forged record): it must come out escaped, never as markup.
const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>"'&`

// fakeBackend answers with fixed results.
type fakeBackend struct {
	board service.BoardResult
	item  service.BoardItemResult
	plan  service.PlanResult
	err   error
	// got records the last requests.
	gotBoard service.BoardRequest
	gotItem  service.BoardItemRequest
	gotPlan  service.PlanRequest
	mark     atomic.Value // string
}

func (f *fakeBackend) BoardMark(context.Context) (string, error) {
	m, _ := f.mark.Load().(string)
	return m, nil
}

func (f *fakeBackend) Plan(_ context.Context, req service.PlanRequest) (service.PlanResult, error) {
	f.gotPlan = req
	return f.plan, f.err
}

func (f *fakeBackend) TicketURL(ref string) string {
	if strings.HasPrefix(ref, "github:") {
		return "https://github.com/" + strings.Replace(strings.TrimPrefix(ref, "github:"), "#", "/issues/", 1)
	}
	return ""
}

func (f *fakeBackend) Board(_ context.Context, req service.BoardRequest) (service.BoardResult, error) {
	f.gotBoard = req
	return f.board, f.err
}

func (f *fakeBackend) BoardItem(_ context.Context, req service.BoardItemRequest) (service.BoardItemResult, error) {
	f.gotItem = req
	return f.item, f.err
}

var fixedNow = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

func newTestHandler(t testing.TB, b Backend) *Handler {
	t.Helper()
	h, err := New(Options{Backend: b, Tokens: []string{testToken}, Now: func() time.Time { return fixedNow }})
	require.NoError(t, err)
	return h
}

// signedInCookie signs in through the form and returns the cookie.
func signedInCookie(t testing.TB, h http.Handler) *http.Cookie {
	t.Helper()
	form := url.Values{"token": {testToken}, "next": {"/ui/items"}}
	r := httptest.NewRequest(http.MethodPost, "/ui/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	for _, c := range w.Result().Cookies() {
		if c.Name == CookieName {
			return c
		}
	}
	t.Fatal("no session cookie set")
	return nil
}

func get(t testing.TB, h http.Handler, target string, c *http.Cookie, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if c != nil {
		r.AddCookie(c)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func boardOf(n int, title string) service.BoardResult {
	res := service.BoardResult{Repos: []string{"/repos/a", "/repos/b"}}
	for i := range n {
		res.Items = append(res.Items, service.BoardItem{Repo: "/repos/a", WorkItem: fmt.Sprintf("issue-%d", i), Ref: fmt.Sprintf("github:octo/widgets#%d", i),
			TicketURL: fmt.Sprintf("https://github.com/octo/widgets/issues/%d", i), Loop: "pdlc-work-item-loop", Node: "implementation",
			State: service.BoardStates[i%len(service.BoardStates)], Stuck: []string{title}, Running: i % 2, Since: fixedNow.Add(-time.Duration(i) * time.Minute),
			Sessions: 2, Tokens: int64(1000 * i), CostUSD: 0.25 * float64(i)})
	}
	return res
}

func itemOf(t testing.TB, text string, events int) service.BoardItemResult {
	t.Helper()
	g, err := service.Graph("")
	require.NoError(t, err)
	loop := service.BoardLoop{Key: "issue-7", Title: "issue-7", Graph: service.GraphView{Name: g.Name, Start: g.Start, Nodes: g.Nodes, Edges: g.Edges},
		Nodes: map[string]service.BoardNode{"phase-selection": {Outcome: "selected", Visited: true}, "brainstorming": {Skipped: true},
			"implementation": {Current: true, Visited: true}}}
	res := service.BoardItemResult{
		Item:      service.BoardItem{Repo: "/repos/a", WorkItem: "issue-7", Ref: "github:octo/widgets#7", Loop: g.Name, Node: "implementation", State: service.BoardAgentWorking, Stuck: []string{text}},
		Loops:     []service.BoardLoop{loop},
		Decisions: []service.BoardDecision{{Node: "phase-selection", Kind: "phase-selection", Outcome: "selected", By: text, At: "2026-12-06T10:00:00Z", CommentURL: "https://github.com/octo/widgets/issues/7#issuecomment-1", Reason: text, Trust: "verified"}},
		Sessions: []service.SessionView{{ID: "s-2", Node: "implementation", Harness: "claude", State: "exited", ExitStatus: "exit 0", Tokens: 1500, CostUSD: 0.5, CostSource: "reported", StartedAt: fixedNow.Add(-time.Hour), EndedAt: fixedNow.Add(-30 * time.Minute), Reason: text},
			{ID: "s-1", Node: "design", Harness: "claude", State: "exited", ExitStatus: "exit 0", Tokens: 500, CostUSD: 0.25, CostSource: "reported", StartedAt: fixedNow.Add(-2 * time.Hour)}},
		Tail: []string{text}, TailSession: "s-2", Total: events,
	}
	for i := events; i > 0; i-- {
		res.Events = append(res.Events, runtime.EventRecord{Seq: int64(i), At: "2026-12-06T10:00:00Z", Name: "node.entered", Node: "implementation", Data: map[string]any{"comment": text}})
	}
	return res
}

// TestPagesRender: every page renders with an empty store, with 1,000
// items and with hostile text, which comes out escaped.
func TestPagesRender(t *testing.T) {
	tests := []struct {
		name  string
		board service.BoardResult
		item  service.BoardItemResult
		want  []string
	}{
		{"empty store", service.BoardResult{Items: []service.BoardItem{}, Repos: []string{}}, service.BoardItemResult{Item: service.BoardItem{WorkItem: "issue-7"}},
			[]string{"No work items in the store yet", "No decisions recorded.", "No agent session ran", "No events."}},
		{"1,000 items", boardOf(1000, "a push was refused"), itemOf(t, "fine", 500),
			[]string{`data-item="issue-999"`, "$249.75", `data-node="implementation"`, `data-seq="500"`}},
		{"hostile text", boardOf(3, hostile), itemOf(t, hostile, 3),
			[]string{"&lt;script&gt;alert(1)&lt;/script&gt;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{board: tt.board, item: tt.item}
			h := newTestHandler(t, b)
			c := signedInCookie(t, h)
			var all strings.Builder
			for _, target := range []string{"/ui/items", "/ui/item?repo=%2Frepos%2Fa&id=issue-7", "/ui/signin?next=/ui/items", "/ui/item"} {
				w := get(t, h, target, c)
				if target == "/ui/signin?next=/ui/items" {
					assert.Equal(t, http.StatusSeeOther, w.Code, "a signed-in browser skips the sign-in page")
					continue
				}
				assert.Contains(t, w.Header().Get("Content-Type"), "charset=utf-8", target)
				assert.Contains(t, w.Body.String(), "</html>", target)
				all.WriteString(w.Body.String())
			}
			body := all.String()
			for _, want := range tt.want {
				assert.Contains(t, body, want)
			}
			// The view's own script file is the only script; no text
			// becomes markup.
			rest := strings.ReplaceAll(body, `<script src="/ui/static/live.js" defer></script>`, "")
			assert.False(t, strings.Contains(rest, "<script"), "a script element besides the view's own")
			assert.False(t, strings.Contains(rest, "<img"), "an img element")
		})
	}
}

// TestItemPageLightsThePointer: the item's graph has exactly one lit node,
// the current one, with its state in words; a skipped node is marked; the
// session total sums the sessions.
func TestItemPageLightsThePointer(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{item: itemOf(t, "x", 3)})
	w := get(t, h, "/ui/item?repo=%2Frepos%2Fa&id=issue-7", signedInCookie(t, h))
	require.Equal(t, http.StatusOK, w.Code)
	body := w.Body.String()
	assert.Equal(t, 1, strings.Count(body, `class="node current"`))
	assert.Contains(t, body, `<g class="node current" data-node="implementation" data-state="here: agent working"`)
	assert.Contains(t, body, `<g class="node skipped" data-node="brainstorming" data-state="skipped"`)
	assert.Contains(t, body, `<g class="node done" data-node="phase-selection" data-state="selected"`)
	assert.Contains(t, body, `<td class="num total">$0.75</td>`)
	assert.Contains(t, body, `<a class="plan" href="/ui/dag?item=github%3Aocto%2Fwidgets%237">`, "the item links its plan")
	assert.Less(t, strings.Index(body, `data-seq="3"`), strings.Index(body, `data-seq="1"`), "newest event first")
}

// TestEventLogPages: before= pages the log; a bad value is refused.
func TestEventLogPages(t *testing.T) {
	b := &fakeBackend{item: itemOf(t, "x", 3)}
	b.item.Older = 42
	h := newTestHandler(t, b)
	c := signedInCookie(t, h)
	w := get(t, h, "/ui/item?repo=r&id=issue-7&before=43", c)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, int64(43), b.gotItem.Before)
	assert.Contains(t, w.Body.String(), `href="/ui/item?before=42&amp;id=issue-7&amp;repo=r" rel="next">older</a>`)
	w = get(t, h, "/ui/item?repo=r&id=issue-7&before=x", c)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "is not an event number")
}

// TestFiltersReachTheCore: the items page passes its filters to the core,
// and the core's refusal of a state is a 400 saying why.
func TestFiltersReachTheCore(t *testing.T) {
	b := &fakeBackend{board: boardOf(2, "x")}
	h := newTestHandler(t, b)
	c := signedInCookie(t, h)
	w := get(t, h, "/ui/items?repo=%2Frepos%2Fb&state=blocked", c)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, service.BoardRequest{Repo: "/repos/b", State: "blocked"}, b.gotBoard)
	assert.Contains(t, w.Body.String(), `<option value="/repos/b" selected>`)
	b.err = fmt.Errorf("%w: state \"nope\" is not one of …", service.ErrInvalidRequest)
	w = get(t, h, "/ui/items?state=nope", c)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "is not one of")
}

// TestSignIn: unauthenticated requests go to the sign-in page and come
// back after it; the cookie is HttpOnly, SameSite=Strict, scoped and
// expiring; a wrong token is refused; the bearer header also works.
func TestSignIn(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{board: boardOf(1, "x")})
	w := get(t, h, "/ui/item?repo=r&id=issue-7", nil)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.Equal(t, "/ui/signin?next=%2Fui%2Fitem%3Frepo%3Dr%26id%3Dissue-7", w.Header().Get("Location"))

	w = get(t, h, "/ui/signin?next=%2Fui%2Fitem%3Frepo%3Dr%26id%3Dissue-7", nil)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `name="next" value="/ui/item?repo=r&amp;id=issue-7"`)
	assert.Contains(t, w.Body.String(), `type="password"`)

	form := url.Values{"token": {testToken}, "next": {"/ui/item?repo=r&id=issue-7"}}
	r := httptest.NewRequest(http.MethodPost, "/ui/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	assert.Equal(t, "/ui/item?repo=r&id=issue-7", rec.Header().Get("Location"))
	set := rec.Header().Get("Set-Cookie")
	for _, want := range []string{CookieName + "=", "Path=/ui/", "HttpOnly", "SameSite=Strict", "Max-Age=43200", "Expires="} {
		assert.Contains(t, set, want)
	}
	assert.NotContains(t, set, testToken, "the cookie is not the token")
	assert.NotContains(t, set, "Secure", "plain HTTP: a Secure cookie would never come back")

	form.Set("token", "wrong-token-wrong-token")
	r = httptest.NewRequest(http.MethodPost, "/ui/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), MsgWrongToken)
	assert.Empty(t, rec.Header().Get("Set-Cookie"))

	assert.Equal(t, http.StatusOK, get(t, h, "/ui/items", nil, "Authorization", "Bearer "+testToken).Code)
	assert.Equal(t, http.StatusSeeOther, get(t, h, "/ui/items", &http.Cookie{Name: CookieName, Value: "forged"}).Code)
}

// TestSignOut: signing out ends the session the cookie named.
func TestSignOut(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{})
	c := signedInCookie(t, h)
	r := httptest.NewRequest(http.MethodPost, "/ui/signout", nil)
	r.AddCookie(c)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusSeeOther, w.Code)
	assert.Contains(t, w.Header().Get("Set-Cookie"), "Max-Age=0")
	assert.Equal(t, http.StatusSeeOther, get(t, h, "/ui/items", c).Code, "the old cookie no longer signs in")
}

// TestSessionExpires: a cookie past its time signs nobody in.
func TestSessionExpires(t *testing.T) {
	now := fixedNow
	h, err := New(Options{Backend: &fakeBackend{}, Tokens: []string{testToken}, SessionTTL: time.Hour, Now: func() time.Time { return now }})
	require.NoError(t, err)
	c := signedInCookie(t, h)
	assert.Equal(t, http.StatusOK, get(t, h, "/ui/items", c).Code)
	now = now.Add(time.Hour + time.Second)
	assert.Equal(t, http.StatusSeeOther, get(t, h, "/ui/items", c).Code)
}

// TestSecureCookieOverTLS: served over TLS the cookie is Secure.
func TestSecureCookieOverTLS(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{})
	srv := httptest.NewTLSServer(h)
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.PostForm(srv.URL+"/ui/signin", url.Values{"token": {testToken}})
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Contains(t, resp.Header.Get("Set-Cookie"), "Secure")
}

// TestRefusals: a token in a query string, cross-origin requests and
// writes other than sign-in/out are refused, on every path; the
// next-destination never leaves the view.
func TestRefusals(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{board: boardOf(1, "x")})
	c := signedInCookie(t, h)
	for _, target := range []string{"/ui/items?token=" + testToken, "/ui/items?access_token=abc", "/ui/signin?Bearer=x", "/ui/items?q=" + testToken, "/ui/item?api_key=1",
		"/ui/items?repo=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln", CallbackPath + "?code=x&state=y&id_token=eyJ",
		CallbackPath + "?code=x&state=y&session=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln"} {
		w := get(t, h, target, c)
		assert.Equal(t, http.StatusBadRequest, w.Code, target)
		assert.Contains(t, w.Body.String(), "a token in a URL is refused", target)
		assert.NotContains(t, w.Body.String(), testToken, "the token is never echoed")
	}
	for _, hdr := range [][]string{{"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors"}, {"Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors"}} {
		w := get(t, h, "/ui/items", c, hdr...)
		assert.Equal(t, http.StatusForbidden, w.Code, hdr)
		assert.Contains(t, w.Body.String(), MsgCrossOrigin)
	}
	assert.Equal(t, http.StatusOK, get(t, h, "/ui/items", c, "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin").Code, "its own origin")

	// A cross-site form post (sign-in CSRF) is refused.
	r := httptest.NewRequest(http.MethodPost, "/ui/signin", strings.NewReader("token="+testToken))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "https://evil.example")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusForbidden, w.Code)

	// A link from a ticket (cross-site navigation, no cookie) reloads the
	// page from the view's own origin rather than failing.
	w = get(t, h, "/ui/item?repo=r&id=issue-7", nil, "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `<meta http-equiv="refresh" content="0; url=/ui/item?repo=r&amp;id=issue-7">`)

	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := httptest.NewRequest(m, "/ui/items", nil)
		r.AddCookie(c)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code, m)
	}
	for next, want := range map[string]string{"https://evil.example/": "/ui/items", "//evil.example/ui/": "/ui/items", "/ui/item?id=1": "/ui/item?id=1", "/mcp": "/ui/items", `/ui/\evil`: "/ui/items"} {
		assert.Equal(t, want, safeNext(next), next)
	}
}

// TestHeaders: every answer carries the CSP without inline script, nosniff
// and no caching; the style sheet is served with a CSS type.
func TestHeaders(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{board: boardOf(1, "x")})
	c := signedInCookie(t, h)
	for _, target := range []string{"/ui/items", "/ui/signin", "/ui/items?token=x", "/ui/static/style.css"} {
		w := get(t, h, target, c)
		assert.Equal(t, ContentSecurityPolicy, w.Header().Get("Content-Security-Policy"), target)
		assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"), target)
	}
	assert.NotContains(t, ContentSecurityPolicy, "unsafe-inline")
	w := get(t, h, "/ui/static/style.css", nil)
	assert.Equal(t, http.StatusOK, w.Code, "the style sheet is public")
	assert.Contains(t, w.Header().Get("Content-Type"), "text/css")
	body, _ := io.ReadAll(w.Body)
	assert.Contains(t, string(body), "prefers-color-scheme: dark")
}

// TestNoTokenConfigured: without a token no browser can sign in, and the
// page says how to configure one.
func TestNoTokenConfigured(t *testing.T) {
	h, err := New(Options{Backend: &fakeBackend{}, TokenEnv: "MY_TOKEN"})
	require.NoError(t, err)
	assert.Contains(t, get(t, h, "/ui/signin", nil).Body.String(), "no bearer token configured")
	r := httptest.NewRequest(http.MethodPost, "/ui/signin", strings.NewReader("token="))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Contains(t, w.Body.String(), MsgNoTokenSetUp+"MY_TOKEN")
}

// TestEveryClientTokenSignsIn: with several clients' tokens configured,
// each of them signs a browser in, and nothing else does.
func TestEveryClientTokenSignsIn(t *testing.T) {
	other := "another-client-token-0123456789"
	h, err := New(Options{Backend: &fakeBackend{}, Tokens: []string{testToken, other}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, get(t, h, "/ui/items", nil, "Authorization", "Bearer "+other).Code)
	assert.Equal(t, http.StatusOK, get(t, h, "/ui/items", nil, "Authorization", "Bearer "+testToken).Code)
	assert.Equal(t, http.StatusSeeOther, get(t, h, "/ui/items", nil, "Authorization", "Bearer not-"+other).Code)
}
