package web

import (
	"fmt"
	"net/http"
	"time"
)

// Live updates: a page that loads static/live.js opens /ui/live, a stream
// of server-sent events, and reloads itself when the stream says the store
// changed. Without script the pages work the same, without the reloads.
const (
	// LiveInterval is how often a stream reads the store's change mark.
	LiveInterval = time.Second
	// liveLifetime ends a stream before the listener's write timeout; the
	// browser reconnects on its own.
	liveLifetime = 5 * time.Minute
)

func (h *Handler) live(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	mark, err := h.opts.Backend.BoardMark(r.Context())
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, "the store cannot be read: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// retry: how long the browser waits before it reconnects.
	fmt.Fprintf(w, "retry: 3000\n: watching the store\n\n")
	_ = rc.Flush()
	tick := time.NewTicker(h.opts.LiveInterval)
	defer tick.Stop()
	end := time.NewTimer(liveLifetime)
	defer end.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.opts.Stop:
			return
		case <-end.C:
			return
		case <-tick.C:
			now, err := h.opts.Backend.BoardMark(r.Context())
			if err != nil || now == mark {
				continue
			}
			mark = now
			if _, err := fmt.Fprintf(w, "event: change\ndata: %d\n\n", time.Now().Unix()); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}
