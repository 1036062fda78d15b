// Package web is the read-only web view of the loop, served by
// `the-loop serve --http` under /ui/: every work item the store knows, one
// item's loop drawn with its pointer lit, its decisions, sessions and
// event log. Pages are rendered on the server with html/template from
// embedded files. A browser signs in once, with the bearer token or
// through the OAuth authorization server (oauth.go), and holds an
// HttpOnly, SameSite=Strict cookie.
package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/the-loop/the-loop/service"
)

// Prefix is where the view is mounted.
const Prefix = "/ui/"

// ContentSecurityPolicy allows the view's own style sheet and script file
// and nothing inline: no inline script, style or event handler runs.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

//go:embed templates/*.html static/*
var files embed.FS

// Backend is the core the view reads: the same service the CLI's verbs
// and the MCP tools call.
type Backend interface {
	Board(ctx context.Context, req service.BoardRequest) (service.BoardResult, error)
	BoardItem(ctx context.Context, req service.BoardItemRequest) (service.BoardItemResult, error)
	Plan(ctx context.Context, req service.PlanRequest) (service.PlanResult, error)
	BoardMark(ctx context.Context) (string, error)
	TicketURL(ref string) string
}

// Options configure the view.
type Options struct {
	Backend Backend
	// Tokens are the bearer tokens a browser signs in with, any of them
	// (none refuses every sign-in, saying how to configure one).
	Tokens []string
	// TokenNames names the client of each of Tokens ("bearer" where
	// absent), the principal a browser signed in with it is.
	TokenNames []string
	// OAuth, when set, signs browsers in through the authorization server
	// (NewOAuth); the token form then stays at /ui/signin?with=token.
	OAuth *OAuth
	// TokenEnv names where the token is read from, for messages.
	TokenEnv string
	// AllowedOrigins are other origins whose requests are accepted
	// (mcp.http.allowedOrigins); the view's own is always accepted.
	AllowedOrigins []string
	// SessionTTL is how long a sign-in lasts (0: DefaultSessionTTL).
	SessionTTL time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Stop, when closed, ends the live-update streams (at shutdown).
	Stop <-chan struct{}
	// LiveInterval is how often a live stream reads the store (0:
	// LiveInterval).
	LiveInterval time.Duration
	Logger       *slog.Logger
}

// Handler serves the view.
type Handler struct {
	opts     Options
	mux      *http.ServeMux
	pages    map[string]*template.Template
	sessions *sessions
	token    tokenCheck
	oauth    *OAuth
	origins  map[string]bool
	log      *slog.Logger
}

// New builds the view's handler; mount it at Prefix.
func New(o Options) (*Handler, error) {
	if o.Backend == nil {
		return nil, errors.New("web: no backend")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LiveInterval <= 0 {
		o.LiveInterval = LiveInterval
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.TokenEnv == "" {
		o.TokenEnv = "THE_LOOP_MCP_TOKEN"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	h := &Handler{opts: o, pages: pages, sessions: newSessions(o.SessionTTL, o.Now), token: newTokenCheck(o.Tokens, o.TokenNames),
		oauth: o.OAuth, origins: map[string]bool{}, log: o.Logger}
	for _, origin := range o.AllowedOrigins {
		h.origins[strings.ToLower(strings.TrimRight(origin, "/"))] = true
	}
	static, err := fs.Sub(files, "static")
	if err != nil {
		return nil, err
	}
	m := http.NewServeMux()
	m.Handle("GET "+Prefix+"static/", http.StripPrefix(Prefix+"static/", http.FileServerFS(static)))
	m.HandleFunc("GET "+Prefix+"signin", h.signinPage)
	m.HandleFunc("POST "+Prefix+"signin", h.signin)
	m.HandleFunc("GET "+CallbackPath, h.oauthCallback)
	m.HandleFunc("POST "+Prefix+"signout", h.signedInOnly(h.signout))
	m.HandleFunc("GET "+Prefix+"items", h.signedInOnly(h.items))
	m.HandleFunc("GET "+Prefix+"item", h.signedInOnly(h.item))
	m.HandleFunc("GET "+Prefix+"dag", h.signedInOnly(h.dag))
	m.HandleFunc("GET "+Prefix+"live", h.signedInOnly(h.live))
	m.HandleFunc("GET "+Prefix+"{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"items", http.StatusSeeOther)
	})
	h.mux = m
	return h, nil
}

func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"cost":     costText,
		"tokens":   tokensText,
		"ago":      ago,
		"when":     when,
		"svg":      SVG,
		"dagurl":   dagURL,
		"data":     dataText,
		"trustcls": func(t string) string { return "trust-" + cls(t) },
		"statecls": func(s string) string { return "state-" + cls(s) },
	}
	base, err := template.New("layout").Funcs(funcs).ParseFS(files, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse layout: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"signin", "items", "item", "dag", "error"} {
		t, err := template.Must(base.Clone()).ParseFS(files, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// ServeHTTP applies the view's headers and refusals, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // "no-referrer" makes Chromium send "Origin: null" with the sign-in form
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
	if r.URL.Path == CallbackPath {
		hd.Set("Referrer-Policy", "no-referrer") // its URL carries the issuer's code
	}
	if h.tokenInQuery(r) {
		h.log.Warn("web: a token in a URL was refused", "path", r.URL.Path, "remote", r.RemoteAddr)
		h.fail(w, r, http.StatusBadRequest, MsgTokenInURL)
		return
	}
	if !h.sameOrigin(r) {
		h.log.Warn("web: cross-origin request refused", "origin", r.Header.Get("Origin"), "site", r.Header.Get("Sec-Fetch-Site"), "remote", r.RemoteAddr)
		h.fail(w, r, http.StatusForbidden, MsgCrossOrigin)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// signedInOnly sends a browser that is not signed in to the sign-in page
// (and back here after it).
func (h *Handler) signedInOnly(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.signedIn(r) {
			next(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.fail(w, r, http.StatusUnauthorized, "sign in first at "+Prefix+"signin")
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			// A link from another site (a ticket) carries no Strict
			// cookie; load the page again from here, which does.
			h.render(w, r, http.StatusOK, "error", page{Title: "Opening…", Refresh: r.URL.RequestURI(), Message: "Opening the page…"})
			return
		}
		http.Redirect(w, r, Prefix+"signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	}
}

// page is what every template gets.
type page struct {
	Title    string
	SignedIn bool
	// Who names the signed-in principal.
	Who string
	// Live loads the script that reloads the page when the store changes.
	Live    bool
	Message string
	// Refresh, when set, reloads this URL at once (a same-site reload).
	Refresh string
	Data    any
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if who, ok := h.principal(r); ok && p.SignedIn {
		p.Who = who.String()
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		h.log.Error("web: render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "error", page{Title: http.StatusText(status), Message: msg, SignedIn: h.signedIn(r)})
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	if h.signedIn(r) {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	q := r.URL.Query()
	view := h.signinView(safeNext(q.Get("next")))
	if h.oauth != nil && !(q.Get("with") == "token" && h.token.set) && q.Get("signedout") == "" {
		h.oauthStart(w, r, view.Next)
		return
	}
	view.TokenForm = h.token.set && (h.oauth == nil || q.Get("with") == "token")
	view.TokenLink = h.token.set && !view.TokenForm
	msg := ""
	if q.Get("signedout") != "" {
		msg = "Signed out."
	}
	h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Message: msg, Data: view})
}

// signinView is what the sign-in page shows.
type signinView struct {
	Next, TokenEnv string
	NoToken        bool
	// Issuer names the authorization server when browsers sign in
	// through it; TokenForm shows the token form, TokenLink a link to it.
	Issuer               string
	TokenForm, TokenLink bool
}

func (h *Handler) signinView(next string) signinView {
	v := signinView{Next: next, TokenEnv: h.opts.TokenEnv, NoToken: !h.token.set && h.oauth == nil, TokenForm: h.oauth == nil}
	if h.oauth != nil {
		v.Issuer = h.oauth.o.Issuer
	}
	return v
}

// signin takes the token once, from a form body, and sets the cookie.
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "the sign-in form could not be read: "+err.Error())
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	view := h.signinView(next)
	view.TokenForm = h.token.set
	if !h.token.set {
		h.render(w, r, http.StatusUnauthorized, "signin", page{Title: "Sign in", Message: MsgNoTokenSetUp + h.opts.TokenEnv + " (or pass --token-file) and restart serve", Data: view})
		return
	}
	who, ok := h.token.client(strings.TrimSpace(r.PostForm.Get("token")))
	if !ok {
		h.log.Warn("web: sign-in with a wrong token", "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, "signin", page{Title: "Sign in", Message: MsgWrongToken + h.opts.TokenEnv, Data: view})
		return
	}
	if !h.openSession(w, r, who, time.Time{}) {
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// openSession starts who's session, ending at the TTL or until (when not
// zero), and sets its cookie; false when it could not (the answer is
// written).
func (h *Handler) openSession(w http.ResponseWriter, r *http.Request, who Principal, until time.Time) bool {
	id, exp, err := h.sessions.open(who, until)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, "could not start a session: "+err.Error())
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: Prefix, Expires: exp, MaxAge: int(exp.Sub(h.opts.Now()).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	h.log.Info("web: a browser signed in", "who", who.String(), "remote", r.RemoteAddr, "expires", exp.UTC().Format(time.RFC3339))
	return true
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		h.sessions.close(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, Prefix+"signin?signedout=1", http.StatusSeeOther)
}
