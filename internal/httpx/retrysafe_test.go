package httpx

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetrySafePOST(t *testing.T) {
	tests := []struct {
		name       string
		ctx        context.Context
		wantStatus int
		wantHits   int
	}{
		{name: "a POST marked retry-safe is resent after a 502 storm", ctx: RetrySafe(context.Background()), wantStatus: 200, wantHits: 3},
		{name: "an unmarked POST is not resent after a 502", ctx: context.Background(), wantStatus: 502, wantHits: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &scripted{steps: []func(http.ResponseWriter, *http.Request){status(502), status(502)}}
			client, _, url, sl := newClient(t, Options{Jitter: func(d time.Duration) time.Duration { return d }}, h)
			req, err := http.NewRequestWithContext(tc.ctx, http.MethodPost, url+"/graphql", strings.NewReader(`{"query":"q"}`))
			require.NoError(t, err)
			resp, err := client.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			assert.Equal(t, tc.wantStatus, resp.StatusCode)
			assert.Equal(t, tc.wantHits, h.hits)
			assert.Len(t, sl.d, tc.wantHits-1)
			for _, b := range h.bodies {
				assert.Equal(t, `{"query":"q"}`, b, "every attempt carries the full body")
			}
		})
	}
}
