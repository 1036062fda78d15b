package web

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLiveStreamSaysWhenTheStoreChanges: /ui/live is an event stream that
// sends "change" once the store's mark moves, and nothing while it stays;
// it wants a signed-in caller and ends when the server stops.
func TestLiveStreamSaysWhenTheStoreChanges(t *testing.T) {
	b := &fakeBackend{}
	b.mark.Store("a")
	stop := make(chan struct{})
	h, err := New(Options{Backend: b, Tokens: []string{testToken}, LiveInterval: 10 * time.Millisecond, Stop: stop})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/ui/live")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Contains(t, resp.Request.URL.Path, "/ui/signin", "not signed in: sent to sign in")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/ui/live", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	read := func(d time.Duration) []string {
		var got []string
		deadline := time.After(d)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return append(got, "EOF")
				}
				got = append(got, l)
			case <-deadline:
				return got
			}
		}
	}
	first := strings.Join(read(200*time.Millisecond), "\n")
	assert.Contains(t, first, "retry: 3000")
	assert.NotContains(t, first, "event: change", "nothing changed yet")
	b.mark.Store("b")
	assert.Contains(t, strings.Join(read(500*time.Millisecond), "\n"), "event: change")
	close(stop)
	assert.Contains(t, read(2*time.Second), "EOF", "the stream ends when the server stops")
}
