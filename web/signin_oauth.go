package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// String names the principal for the page's header and the log.
func (p Principal) String() string {
	if p.Method == "oauth" {
		return p.Subject + " (OAuth, " + p.Issuer + ")"
	}
	return p.Subject + " (token)"
}

// oauthStart sends the browser to the authorization endpoint, holding the
// sign-in's id in a short-lived cookie bound to this browser.
func (h *Handler) oauthStart(w http.ResponseWriter, r *http.Request, next string) {
	id, target, err := h.oauth.start(h.opts.Now(), next)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, "could not start the sign-in: "+err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Value: id, Path: Prefix + "oauth/", MaxAge: int(flowTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// oauthCallback takes the authorization server's answer: the sign-in
// this browser started (its cookie, its state), the code exchanged once
// with the PKCE verifier, the ID token (issuer, audience, expiry, nonce)
// and the access token checked as the MCP endpoint checks it; then the
// browser holds a session of that principal, ending with the access token
// or the TTL, whichever comes first.
func (h *Handler) oauthCallback(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Value: "", Path: Prefix + "oauth/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	if h.oauth == nil {
		h.fail(w, r, http.StatusNotFound, "this server does not sign browsers in through OAuth (mcp.http.oauth.webClientId is not set): sign in at /ui/signin")
		return
	}
	now := h.opts.Now()
	q := r.URL.Query()
	var f *flow
	if c, err := r.Cookie(flowCookie); err == nil {
		f = h.oauth.take(now, c.Value)
	}
	switch {
	case f == nil:
		h.refuseSignin(w, r, http.StatusBadRequest, MsgOAuthNoFlow, "no sign-in in progress")
		return
	case subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) != 1:
		h.refuseSignin(w, r, http.StatusBadRequest, MsgOAuthState, "state mismatch")
		return
	case q.Get("error") != "":
		said := printable(q.Get("error"))
		if d := q.Get("error_description"); d != "" {
			said += ": " + printable(d)
		}
		h.refuseSignin(w, r, http.StatusUnauthorized, MsgOAuthRefused+said+"; start again at /ui/signin", "issuer error "+printable(q.Get("error")))
		return
	case q.Get("code") == "":
		h.refuseSignin(w, r, http.StatusBadRequest, MsgOAuthNoCode, "no code")
		return
	case !h.oauth.spend(now, q.Get("code")):
		h.refuseSignin(w, r, http.StatusBadRequest, MsgOAuthReplay, "replayed code")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	who, until, no := h.oauth.finish(ctx, q.Get("code"), f)
	if no != nil {
		h.refuseSignin(w, r, no.status, no.msg, no.reason)
		return
	}
	if !h.openSession(w, r, who, until) {
		return
	}
	// The browser came here from the issuer's site, so a redirect would
	// carry no SameSite=Strict cookie: load the page from here instead.
	h.render(w, r, http.StatusOK, "error", page{Title: "Signed in", Refresh: f.next, Message: "Signed in as " + who.String() + "; opening the page…"})
}

// refusal is a refused sign-in: its status, the page's message and the
// log's reason.
type refusal struct {
	status      int
	msg, reason string
}

// finish exchanges the code and checks both tokens. It returns the
// principal and the access token's expiry, or why the sign-in is refused.
func (a *OAuth) finish(ctx context.Context, code string, f *flow) (Principal, time.Time, *refusal) {
	const again = "; start again at /ui/signin"
	toks, err := a.exchange(ctx, code, f.verifier)
	if err != nil {
		return Principal{}, time.Time{}, &refusal{http.StatusBadGateway, MsgOAuthExchange + err.Error() + again, "exchange: " + err.Error()}
	}
	id, err := a.idTokens.Verify(ctx, toks.IDToken)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return Principal{}, time.Time{}, &refusal{http.StatusUnauthorized, MsgOAuthIDToken + "it has expired (at " + expired.Expiry.UTC().Format(time.RFC3339) + "); check the clocks of this host and the issuer, then start again at /ui/signin", "id token expired"}
		}
		return Principal{}, time.Time{}, &refusal{http.StatusUnauthorized, MsgOAuthIDToken + err.Error() + again, "id token: " + err.Error()}
	}
	if subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(f.nonce)) != 1 {
		return Principal{}, time.Time{}, &refusal{http.StatusUnauthorized, MsgOAuthNonce, "nonce mismatch"}
	}
	who, until, err := a.o.Verify(ctx, toks.AccessToken)
	if err != nil {
		return Principal{}, time.Time{}, &refusal{http.StatusUnauthorized, MsgOAuthAccessToken + err.Error() + again, "access token: " + err.Error()}
	}
	if who.Subject != id.Subject {
		return Principal{}, time.Time{}, &refusal{http.StatusUnauthorized, MsgOAuthSubject, "subjects differ"}
	}
	return who, until, nil
}

// refuseSignin answers a refused sign-in with its page, and logs why
// (never a code or a token).
func (h *Handler) refuseSignin(w http.ResponseWriter, r *http.Request, status int, msg, reason string) {
	h.log.Warn("web: OAuth sign-in refused", "reason", reason, "remote", r.RemoteAddr)
	h.render(w, r, status, "error", page{Title: "Sign-in refused", Message: msg, Data: retry{Signin: Prefix + "signin?signedout=1"}})
}

// retry offers the sign-in page again on an error page.
type retry struct{ Signin string }
