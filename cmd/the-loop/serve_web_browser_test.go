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
func TestWebViewInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; not in -short")
	}
	browser := chromiumPath(t)
	db, _ := seedWebStore(t)
	base := startServeWeb(t, db)
	shots := screenshotDir(t)
	var docs string
	if os.Getenv("UPDATE_SCREENSHOTS") == "1" {
		docs = filepath.Join("..", "..", "docs", "web")
		require.NoError(t, os.MkdirAll(docs, 0o755))
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.WindowSize(1200, 860),
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("hide-scrollbars", true), chromedp.Flag("force-prefers-reduced-motion", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's own sandbox refuses to run as root
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")), "start the browser")
	console := &consoleLog{}
	go console.watch(ctx)

	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(shots, name), png, 0o644))
		if docs != "" {
			require.NoError(t, os.WriteFile(filepath.Join(docs, name), png, 0o644))
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return strings.TrimSpace(s)
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
		require.NoError(t, err, sel)
		return n
	}

	// Not signed in: the items page sends the browser to sign in.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"items"), chromedp.WaitVisible(chromedp.CSS("#token"))))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.Equal(t, base+"signin?next=%2Fui%2Fitems", loc)
	shoot("signin.png")

	// Sign in with the form; back on the items page.
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#token"), webTestToken), chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("table.items"))))
	loc, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.Equal(t, base+"items", loc)
	first, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("table.items tbody tr"), "data-item"))
	require.NoError(t, err)
	assert.Equal(t, "issue-8", first.Value, "the item waiting for a human comes first")
	assert.Equal(t, "waiting for a human", text(`tr[data-item="issue-8"] .badge`))
	assert.Equal(t, "$1.75", text(`tr[data-item="issue-7"] td:last-child`))
	cookie, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.cookie"))
	require.NoError(t, err)
	assert.Empty(t, cookie, "the session cookie is HttpOnly: no script can read it")
	shoot("items.png")

	// Follow the item: its graph has one lit node, implementation.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr[data-item="issue-7"] td:first-child a`)),
		chromedp.WaitVisible(chromedp.CSS("svg.graph"))))
	assert.Equal(t, 1, count("g.node.current"))
	lit, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("g.node.current"), "data-node"))
	require.NoError(t, err)
	assert.Equal(t, "implementation", lit.Value)
	assert.Equal(t, "here: agent working", text("g.node.current text.state"), "the state is written beside the colour")
	assert.Equal(t, "skipped", text(`g.node[data-node="brainstorming"] text.state`))
	assert.Equal(t, 2, count("tr.session"))
	assert.Equal(t, "$1.25", text(`tr.session[data-session="s-a"] td.cost`))
	assert.Equal(t, "$1.75", text("td.total"))
	assert.Equal(t, 3, count("ol.events li"))
	newest, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("ol.events li"), "data-seq"))
	require.NoError(t, err)
	assert.Equal(t, "3", newest.Value, "newest event first")
	assert.Contains(t, text("pre.tail"), "done — tests pass", "UTF-8 reads as UTF-8")
	shoot("item-top.png")
	require.NoError(t, chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("g.node.current"))))
	shoot("item-graph.png")
	require.NoError(t, chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#sessions"))))
	shoot("item-sessions.png")

	// A token in the URL is refused, even signed in.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"items?token="+webTestToken), chromedp.WaitVisible(chromedp.CSS(".message"))))
	assert.Contains(t, text(".message"), "a token in a URL is refused")

	var errs []string
	for _, m := range console.all() {
		if !strings.Contains(m, "400 (Bad Request)") { // the refusal just above, logged by the browser
			errs = append(errs, m)
		}
	}
	assert.Empty(t, errs, "the pages write no error to the console (a CSP violation would)")
	t.Logf("web view screenshots: %s", shots)
}
