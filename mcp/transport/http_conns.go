package transport

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// connLimiter caps open connections overall and per client address, in two
// pools. A connection is unproven until a request on it authenticates
// (authenticator.admit proves it); then it counts among its client's
// authenticated connections. A new connection past the unproven per-client
// cap, or past the overall cap, closes its client's (or anyone's) oldest
// unproven connection instead of being refused, so connections without a
// token — opened and left silent, or sending wrong tokens — can never take
// an authenticated client's place. Only when every open connection is an
// authenticated one is a newcomer closed at once, before a byte is read.
type connLimiter struct {
	net.Listener
	max, perClient int
	logger         *slog.Logger

	mu       sync.Mutex
	open     int
	unproven []*limitedConn // oldest first
	proven   map[string]int
	warned   time.Time
}

func newConnLimiter(ln net.Listener, max, perClient int, logger *slog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perClient: perClient, logger: logger, proven: map[string]int{}}
}

// Accept returns the next connection within the caps.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, client: clientOf(c.RemoteAddr()), l: l}
		victim, ok := l.admit(lc)
		if victim != nil {
			_ = victim.Close()
		}
		if ok {
			return lc, nil
		}
		_ = c.Close()
	}
}

// admit places c among the unproven connections, choosing the unproven
// connection it displaces (nil for none); false when there is no place.
func (l *connLimiter) admit(c *limitedConn) (*limitedConn, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var victim *limitedConn
	mine := 0
	for _, u := range l.unproven {
		if u.client == c.client {
			if victim == nil {
				victim = u
			}
			mine++
		}
	}
	switch {
	case mine >= l.perClient:
	case l.open >= l.max && len(l.unproven) > 0:
		victim = l.unproven[0]
	case l.open >= l.max:
		l.warn(c.client)
		return nil, false
	default:
		victim = nil
	}
	if victim != nil {
		l.forget(victim)
		l.warn(c.client)
	}
	l.open++
	l.unproven = append(l.unproven, c)
	return victim, true
}

// warn logs, at most every ten seconds, that the caps are reached.
func (l *connLimiter) warn(client string) {
	if now := time.Now(); now.Sub(l.warned) > 10*time.Second {
		l.warned = now
		l.logger.Warn("mcp http: connection limit reached; the oldest connection that never authenticated makes room, or a newcomer is closed",
			"client", client, "open", l.open, "maxConnections", l.max, "maxConnectionsPerClient", l.perClient)
	}
}

// forget drops c from the counts (under mu), once.
func (l *connLimiter) forget(c *limitedConn) {
	if c.gone {
		return
	}
	c.gone = true
	l.open--
	if c.proven {
		if l.proven[c.client]--; l.proven[c.client] <= 0 {
			delete(l.proven, c.client)
		}
		return
	}
	for i, u := range l.unproven {
		if u == c {
			l.unproven = append(l.unproven[:i], l.unproven[i+1:]...)
			break
		}
	}
}

// prove moves c among its client's authenticated connections; false when
// the client holds its cap of them already.
func (l *connLimiter) prove(c *limitedConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.proven {
		return true
	}
	if c.gone || l.proven[c.client] >= l.perClient {
		return false
	}
	for i, u := range l.unproven {
		if u == c {
			l.unproven = append(l.unproven[:i], l.unproven[i+1:]...)
			break
		}
	}
	c.proven = true
	l.proven[c.client]++
	return true
}

// clientOf is the client address of a connection, without its port.
func clientOf(a net.Addr) string {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// limitedConn gives its place back when closed.
type limitedConn struct {
	net.Conn
	client string
	l      *connLimiter
	// proven and gone are guarded by l.mu.
	proven, gone bool
}

func (c *limitedConn) prove() bool { return c.l.prove(c) }

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// connKey carries the request's connection (http.Server.ConnContext).
type connKey struct{}
