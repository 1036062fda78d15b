package httpx

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// etagServer serves a versioned document with an ETag and answers a matching
// If-None-Match with 304, counting only the 200s as quota spent.
type etagServer struct {
	mu        sync.Mutex
	version   int
	full      int
	notMod    int
	lastINM   string
	remaining int
}

func (s *etagServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	etag := fmt.Sprintf(`W/"v%d"`, s.version)
	s.lastINM = r.Header.Get("If-None-Match")
	if s.lastINM == etag {
		s.notMod++
		w.Header().Set("X-RateLimit-Remaining", fmt.Sprint(s.remaining))
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.full++
	s.remaining--
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-RateLimit-Remaining", fmt.Sprint(s.remaining))
	fmt.Fprintf(w, `[{"path":%q,"version":%d}]`, r.URL.Path, s.version)
}

func get(t *testing.T, c *http.Client, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), resp.Header
}

func TestConditionalListingServedFromCacheOn304(t *testing.T) {
	s := &etagServer{version: 1, remaining: 100}
	opts := Options{Conditional: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/comments") }}
	client, tr, url, _ := newClient(t, opts, s)

	code, first, _ := get(t, client, url+"/issues/1/comments")
	require.Equal(t, 200, code)
	assert.Empty(t, s.lastINM, "first request is unconditional")

	code, second, h := get(t, client, url+"/issues/1/comments")
	assert.Equal(t, 200, code, "a 304 is turned back into the cached 200")
	assert.Equal(t, first, second)
	assert.Equal(t, `W/"v1"`, s.lastINM)
	assert.Equal(t, "1", h.Get(HeaderFromCache))
	assert.Equal(t, "99", h.Get("X-RateLimit-Remaining"), "the budget is unchanged by the 304")
	assert.Equal(t, 1, s.full)
	assert.Equal(t, 1, s.notMod)
	assert.Equal(t, int64(1), tr.Stats().NotModified)

	s.mu.Lock()
	s.version = 2
	s.mu.Unlock()
	code, third, h := get(t, client, url+"/issues/1/comments")
	assert.Equal(t, 200, code)
	assert.Contains(t, third, `"version":2`)
	assert.Empty(t, h.Get(HeaderFromCache))

	_, fourth, _ := get(t, client, url+"/issues/1/comments")
	assert.Equal(t, third, fourth, "the cache now holds the new page")
	assert.Equal(t, `W/"v2"`, s.lastINM)
}

func TestUnselectedRequestsAreNeverConditional(t *testing.T) {
	s := &etagServer{version: 1, remaining: 100}
	opts := Options{Conditional: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/comments") }}
	client, _, url, _ := newClient(t, opts, s)
	get(t, client, url+"/issues/1")
	get(t, client, url+"/issues/1")
	assert.Empty(t, s.lastINM)
	assert.Equal(t, 2, s.full)
}

func TestCachePagesAreKeyedByURL(t *testing.T) {
	s := &etagServer{version: 1, remaining: 100}
	opts := Options{Conditional: func(*http.Request) bool { return true }}
	client, _, url, _ := newClient(t, opts, s)
	_, p1, _ := get(t, client, url+"/a/comments?page=1")
	_, p2, _ := get(t, client, url+"/b/comments?page=2")
	_, again, _ := get(t, client, url+"/a/comments?page=1")
	assert.NotEqual(t, p1, p2)
	assert.Equal(t, p1, again)
}

func TestCacheIsBounded(t *testing.T) {
	c := newETagCache(2)
	for i := range 3 {
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Etag": {fmt.Sprint(i)}}, Body: io.NopCloser(strings.NewReader("x"))}
		_, err := c.store(fmt.Sprint(i), resp)
		require.NoError(t, err)
	}
	_, ok := c.get("0")
	assert.False(t, ok, "the least recently used entry is evicted")
	_, ok = c.get("2")
	assert.True(t, ok)
	assert.Equal(t, 2, c.order.Len())
}

type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("boom") }
func (failingBody) Close() error             { return nil }

func TestCacheStoreReportsBodyErrors(t *testing.T) {
	c := newETagCache(2)
	_, err := c.store("k", &http.Response{StatusCode: 200, Header: http.Header{"Etag": {"1"}}, Body: failingBody{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read response body")
	_, ok := c.get("k")
	assert.False(t, ok)
}

func TestConditionalRequestWithOwnIfNoneMatchIsPassedThrough(t *testing.T) {
	s := &etagServer{version: 1, remaining: 100}
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: New(Options{Conditional: func(*http.Request) bool { return true }})}
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
	require.NoError(t, err)
	req.Header.Set("If-None-Match", `W/"v1"`)
	resp, err := client.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
}
