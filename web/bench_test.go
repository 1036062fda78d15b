package web

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPages measures the server's time to answer each page through
// the whole handler (headers, refusals, session check, routing, render),
// against a floor in the same run: the same path rendering an empty
// template. cpu-ns/op is the process's CPU time per page (wall time on a
// shared machine measures the neighbours). The backend is a fake that hands back a ready result, so the
// figures are the view's own cost. bytes/page is the body's size.
//
//	go test ./web -run '^$' -bench BenchmarkPages -benchtime 200x
func BenchmarkPages(b *testing.B) {
	fb := &fakeBackend{board: boardOf(1000, "a push to origin was refused: the remote rejected it"), item: itemOf(b, "node.entered after a claim", 500)}
	h := newTestHandler(b, fb)
	h.pages["floor"] = template.Must(template.New("layout").Parse(`{{define "layout"}}{{end}}`))
	h.mux.HandleFunc("GET "+Prefix+"floor", h.signedInOnly(func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusOK, "floor", page{})
	}))
	c := signedInCookie(b, h)
	for _, bc := range []struct{ name, target string }{
		{"floor", "/ui/floor"},
		{"items-1000", "/ui/items"},
		{"item-500-events", "/ui/item?repo=%2Frepos%2Fa&id=issue-7"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, bc.target, nil)
			r.AddCookie(c)
			size := 0
			cpu0 := cpuTime()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", bc.target, w.Code, w.Body.String())
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/page")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's CPU time (user and system): on a machine shared
// with other work it says what a page costs better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
