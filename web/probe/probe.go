// Package probe is the operations surface of a the-loop process: /healthz
// (alive), /readyz (able to serve now) and /metrics (Prometheus), served
// on serve's and poll's --metrics-addr listener, and /readyz beside /mcp.
package probe

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/service"
)

// Paths of the probes.
const (
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
	MetricsPath = "/metrics"
)

// Health answers 200 {"status":"ok"} while the process answers at all.
func Health() http.Handler {
	return getOnly(func(w http.ResponseWriter, r *http.Request) {
		answer(w, r, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// readyAnswer is /readyz's body.
type readyAnswer struct {
	Status string               `json:"status"`
	Checks []service.ReadyCheck `json:"checks"`
}

// Ready answers 200 when every check passes, else 503, with each check
// and what fails in it.
func Ready(checks func(ctx context.Context) []service.ReadyCheck) http.Handler {
	return getOnly(func(w http.ResponseWriter, r *http.Request) {
		cs := checks(r.Context())
		status, code := "ready", http.StatusOK
		for _, c := range cs {
			if !c.OK {
				status, code = "not ready", http.StatusServiceUnavailable
			}
		}
		answer(w, r, code, readyAnswer{Status: status, Checks: cs})
	})
}

// Mux is the --metrics-addr listener's handler: /healthz, /readyz and
// /metrics, none of which needs a token (bind it where only the scraper
// reaches it).
func Mux(ready http.Handler, m *metrics.Metrics) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(HealthPath, Health())
	mux.Handle(ReadyPath, ready)
	mux.Handle(MetricsPath, getOnly(m.Handler().ServeHTTP))
	return mux
}

func getOnly(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		h(w, r)
	})
}

func answer(w http.ResponseWriter, r *http.Request, code int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}
