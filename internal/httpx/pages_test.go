package httpx

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memPages is a PageStore in a map, standing in for the state database.
type memPages struct {
	mu      sync.Mutex
	pages   map[string]Page
	touched int
}

func (m *memPages) LoadPage(_ context.Context, key string) (Page, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pages[key]
	return p, ok, nil
}

func (m *memPages) SavePage(_ context.Context, key string, p Page) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pages == nil {
		m.pages = map[string]Page{}
	}
	m.pages[key] = p
	return nil
}

func (m *memPages) TouchPage(context.Context, string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.touched++
	return nil
}

// A page cached by one Transport is revalidated for free by the next one:
// the cache outlives the provider and the process.
func TestCachedPagesOutliveTheTransport(t *testing.T) {
	s := &etagServer{version: 1, remaining: 100}
	pages := &memPages{}
	opts := Options{Conditional: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/comments") }, Pages: pages}
	first, _, url, _ := newClient(t, opts, s)
	code, body, _ := get(t, first, url+"/issues/1/comments")
	require.Equal(t, 200, code)
	require.Len(t, pages.pages, 1)

	second := &http.Client{Transport: New(opts)}
	code, again, h := get(t, second, url+"/issues/1/comments")
	assert.Equal(t, 200, code)
	assert.Equal(t, body, again)
	assert.Equal(t, "1", h.Get(HeaderFromCache))
	assert.Equal(t, 1, s.full, "the second transport spent no quota")
	assert.Equal(t, 1, s.notMod)
	assert.Equal(t, 1, pages.touched, "a confirmed page is marked as in use")
}

func TestCookiesAreNeverCached(t *testing.T) {
	pages := &memPages{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "JSESSIONID", Value: "secret-session"})
		w.Header().Set("ETag", `"v1"`)
		_, _ = w.Write([]byte("[]"))
	})
	client, _, url, _ := newClient(t, Options{Conditional: func(*http.Request) bool { return true }, Pages: pages}, h)
	get(t, client, url+"/x")
	for _, p := range pages.pages {
		assert.Empty(t, p.Header.Values("Set-Cookie"))
	}
}
