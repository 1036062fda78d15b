package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath finds the browser the web view's test drives: Debian's
// chromium (which .ci/run installs), or another Chromium on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium (CI installs it)")
	return ""
}

// screenshotDir is where the browser test writes its pictures: a folder
// under $CI_ARTIFACTS when CI keeps one, else /tmp/the-loop-screenshots.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := "/tmp/the-loop-screenshots"
	if a := os.Getenv("CI_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "web-screenshots")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// consoleLog collects what the pages write to the browser's console and
// log (a CSP violation is an error there).
type consoleLog struct {
	mu   sync.Mutex
	msgs []string
}

func (c *consoleLog) watch(ctx context.Context) {
	for m, err := range chromedp.Console(ctx) {
		if err != nil {
			return
		}
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
			c.mu.Lock()
			c.msgs = append(c.msgs, string(m.Type)+": "+m.String())
			c.mu.Unlock()
		}
	}
}

func (c *consoleLog) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

// TestWebViewInChromium drives a real headless Chromium through the view
// the real `serve --http` serves over a seeded store: sign in with the
// form, the items page (what needs a human first), follow an item, the lit
// node, the session rows and their total cost, the event log newest
// first; the cookie is out of the page's reach, a token in the URL is
// refused, and no page writes an error to the console. Screenshots of each
// page are written to screenshotDir; UPDATE_SCREENSHOTS=1 also writes
// docs/web/*.png, the pictures docs/web.md shows.
// browserRig is a headless Chromium with helpers that fail the test.
type browserRig struct {
	t       *testing.T
	ctx     context.Context
	console *consoleLog
	shots   string
	docs    string // "" unless UPDATE_SCREENSHOTS=1
}

func newBrowser(t *testing.T) *browserRig {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser; not in -short")
	}
	browser := chromiumPath(t)
	r := &browserRig{t: t, shots: screenshotDir(t), console: &consoleLog{}}
	if os.Getenv("UPDATE_SCREENSHOTS") == "1" {
		r.docs = filepath.Join("..", "..", "docs", "web")
		require.NoError(t, os.MkdirAll(r.docs, 0o755))
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.WindowSize(1200, 860),
		chromedp.Flag("hide-scrollbars", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's own sandbox refuses to run as root
	}
	// A browser that exits before it listens is started once more, with a
	// profile of its own: on a loaded machine Chromium now and then dies at
	// start-up, before the page under test is involved.
	var err error
	for attempt := 1; attempt <= 2; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts[:len(opts):len(opts)], chromedp.UserDataDir(t.TempDir()))...)
		ctx, cancel := chromedp.NewContext(actx)
		ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
		t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
		if err = chromedp.Do(ctx, chromedp.Navigate("about:blank")); err == nil {
			r.ctx = ctx
			go r.console.watch(ctx)
			return r
		}
		t.Logf("start the browser, attempt %d: %v", attempt, err)
	}
	require.NoError(t, err, "start the browser")
	return r
}

func (r *browserRig) do(steps ...chromedp.Action[chromedp.Void]) {
	r.t.Helper()
	require.NoError(r.t, chromedp.Do(r.ctx, steps...))
}

func (r *browserRig) shoot(name string) {
	r.t.Helper()
	png, err := chromedp.Run(r.ctx, chromedp.CaptureScreenshot())
	require.NoError(r.t, err)
	require.NoError(r.t, os.WriteFile(filepath.Join(r.shots, name), png, 0o644))
	if r.docs != "" {
		require.NoError(r.t, os.WriteFile(filepath.Join(r.docs, name), png, 0o644))
	}
}

func (r *browserRig) text(sel string) string {
	r.t.Helper()
	s, err := chromedp.Run(r.ctx, chromedp.TextContent(chromedp.CSS(sel)))
	require.NoError(r.t, err, sel)
	return strings.TrimSpace(s)
}

func (r *browserRig) attr(sel, name string) string {
	r.t.Helper()
	v, err := chromedp.Run(r.ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	require.NoError(r.t, err, sel)
	return v.Value
}

func (r *browserRig) count(sel string) int {
	r.t.Helper()
	n, err := chromedp.Run(r.ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	require.NoError(r.t, err, sel)
	return n
}

func (r *browserRig) location() string {
	r.t.Helper()
	loc, err := chromedp.Run(r.ctx, chromedp.Location())
	require.NoError(r.t, err)
	return loc
}

// signIn opens target, is sent to the sign-in form, and signs in.
func (r *browserRig) signIn(base, target, waitFor string) {
	r.t.Helper()
	r.do(chromedp.Navigate(base+target), chromedp.WaitVisible(chromedp.CSS("#token")))
	r.do(chromedp.SendKeys(chromedp.CSS("#token"), webTestToken), chromedp.Submit(chromedp.CSS("#token")), chromedp.WaitVisible(chromedp.CSS(waitFor)))
}

// noConsoleErrors: no page wrote an error or warning to the console
// (a CSP violation would), but for the refusals the test asked for.
func (r *browserRig) noConsoleErrors(expected ...string) {
	r.t.Helper()
	var errs []string
	for _, m := range r.console.all() {
		ok := false
		for _, e := range expected {
			ok = ok || strings.Contains(m, e)
		}
		if !ok {
			errs = append(errs, m)
		}
	}
	assert.Empty(r.t, errs, "the pages write no error to the console")
	r.t.Logf("web view screenshots: %s", r.shots)
}

// TestWebViewInChromium drives a real headless Chromium through the view
// the real `serve --http` serves over a seeded store: sign in with the
// form, the items page (what needs a human first), follow an item, the lit
// node, the session rows and their total cost, the event log newest
// first; the cookie is out of the page's reach, a token in the URL is
// refused, and no page writes an error to the console. Screenshots of each
// page are written to screenshotDir; UPDATE_SCREENSHOTS=1 also writes
// docs/web/*.png, the pictures docs/web.md shows.
func TestWebViewInChromium(t *testing.T) {
	b := newBrowser(t)
	db, repo := seedWebStore(t)
	base := startServeWeb(t, db)

	// Not signed in: the items page sends the browser to sign in.
	b.do(chromedp.Navigate(base+"items"), chromedp.WaitVisible(chromedp.CSS("#token")))
	assert.Equal(t, base+"signin?next=%2Fui%2Fitems", b.location())
	b.shoot("signin.png")

	// Sign in with the form; back on the items page.
	b.do(chromedp.SendKeys(chromedp.CSS("#token"), webTestToken), chromedp.Submit(chromedp.CSS("#token")), chromedp.WaitVisible(chromedp.CSS("table.items")))
	assert.Equal(t, base+"items", b.location())
	assert.Equal(t, "issue-8", b.attr("table.items tbody tr", "data-item"), "the item waiting for a human comes first")
	assert.Equal(t, "waiting for a human", b.text(`tr[data-item="issue-8"] .badge`))
	assert.Equal(t, "$1.75", b.text(`tr[data-item="issue-7"] td:last-child`))
	cookie, err := chromedp.Run(b.ctx, chromedp.Evaluate[string]("document.cookie"))
	require.NoError(t, err)
	assert.Empty(t, cookie, "the session cookie is HttpOnly: no script can read it")
	b.shoot("items.png")

	// Live: an item the poller stores while the page is open appears
	// without a click (the page's script reloads it on the server's event).
	addWebItem(t, db, repo, "issue-9", "requirements-approval")
	b.do(chromedp.WaitVisible(chromedp.CSS(`tr[data-item="issue-9"]`)))
	assert.Equal(t, base+"items", b.location())

	// Follow the item: its graph has one lit node, implementation.
	b.do(chromedp.Click(chromedp.CSS(`tr[data-item="issue-7"] td:first-child a`)), chromedp.WaitVisible(chromedp.CSS("svg.graph")))
	assert.Equal(t, 1, b.count("g.node.current"))
	assert.Equal(t, "implementation", b.attr("g.node.current", "data-node"))
	assert.Equal(t, "here: agent working", b.text("g.node.current text.state"), "the state is written beside the colour")
	assert.Equal(t, "skipped", b.text(`g.node[data-node="brainstorming"] text.state`))
	assert.Equal(t, 2, b.count("tr.session"))
	assert.Equal(t, "$1.25", b.text(`tr.session[data-session="s-a"] td.cost`))
	assert.Equal(t, "$1.75", b.text("td.total"))
	assert.Equal(t, 3, b.count("ol.events li"))
	assert.Equal(t, "3", b.attr("ol.events li", "data-seq"), "newest event first")
	assert.Contains(t, b.text("pre.tail"), "done — tests pass", "UTF-8 reads as UTF-8")
	b.shoot("item-top.png")
	b.do(chromedp.ScrollIntoView(chromedp.CSS("g.node.current")))
	b.shoot("item-graph.png")
	b.do(chromedp.ScrollIntoView(chromedp.CSS("#sessions")))
	b.shoot("item-sessions.png")

	// A token in the URL is refused, even signed in.
	b.do(chromedp.Navigate(base+"items?token="+webTestToken), chromedp.WaitVisible(chromedp.CSS(".message")))
	assert.Contains(t, b.text(".message"), "a token in a URL is refused")
	b.noConsoleErrors("400 (Bad Request)")
}

// TestWebViewDAGInChromium: over the state a real poller wrote for the
// test project (an epic with three sub-issues in a chain, two of them
// armed), the items page lists the armed items, and the plan page draws
// every dependency edge of the plan `the-loop plan` computes, each ticket
// with its state and what blocks it.
func TestWebViewDAGInChromium(t *testing.T) {
	b := newBrowser(t)
	p := newPlanProject(t)
	env := &Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Cwd: p.repo}
	base := startServeWebWith(t, env, p.vars, "--config", p.config)

	b.signIn(base, "items", "table.items")
	assert.Equal(t, 2, b.count("table.items tbody tr"), "the two armed items")
	b.do(chromedp.Navigate(base+"dag?item=%231"), chromedp.WaitVisible(chromedp.CSS("svg.graph")))
	assert.Equal(t, 5, b.count("svg.graph g.node"))
	// #2 blocks #3, #3 blocks #4, PROJ-2 blocks #4, and #1 is the parent of #2, #3, #4.
	assert.Equal(t, 6, b.count("svg.graph path.edge"))
	assert.Equal(t, 3, b.count(`svg.graph path.edge.on-parent-of`))
	assert.Equal(t, "held · at phase-selection", b.attr(`g.node[data-node="#3"]`, "data-state"))
	assert.Contains(t, b.text(`tr[data-ref="#4"] td:nth-child(5)`), "#3 (at phase-selection")
	assert.Contains(t, b.text(`tr[data-ref="#4"] td:nth-child(5)`), "jira:PROJ-2 (not started")
	b.shoot("dag.png")
	b.noConsoleErrors()
}
