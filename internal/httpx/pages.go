package httpx

import (
	"context"
	"net/http"
)

// Page is one cached answer of a conditional GET: the validator, the
// headers and the body of the last 200.
type Page struct {
	ETag   string
	Header http.Header
	Body   []byte
}

// PageStore keeps cached pages outside the process, so conditional
// requests stay free across poll cycles and restarts: the poller keeps
// them in the state store. With a PageStore the Transport keeps no pages in memory.
type PageStore interface {
	// LoadPage returns the page cached under key; found is false when none.
	LoadPage(ctx context.Context, key string) (p Page, found bool, err error)
	// SavePage stores p under key, replacing what was there.
	SavePage(ctx context.Context, key string, p Page) error
	// TouchPage records that the page under key was confirmed unchanged
	// (a 304), so the store keeps it while it is in use.
	TouchPage(ctx context.Context, key string) error
}
