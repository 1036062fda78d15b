package transport

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// connLimiter caps open connections overall and per client address. A
// connection past either cap is closed as soon as it is accepted, before a
// byte is read from it, so neither one client nor a crowd of tokenless
// connections can pin the server's memory or file descriptors.
type connLimiter struct {
	net.Listener
	max, perClient int
	logger         *slog.Logger

	mu       sync.Mutex
	open     int
	byClient map[string]int
	warned   time.Time
}

func newConnLimiter(ln net.Listener, max, perClient int, logger *slog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perClient: perClient, logger: logger, byClient: map[string]int{}}
}

// Accept returns the next connection within the caps.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		client := clientOf(c.RemoteAddr())
		if l.admit(client) {
			return &limitedConn{Conn: c, release: sync.OnceFunc(func() { l.release(client) })}, nil
		}
		_ = c.Close()
	}
}

func (l *connLimiter) admit(client string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max || l.byClient[client] >= l.perClient {
		if now := time.Now(); now.Sub(l.warned) > 10*time.Second {
			l.warned = now
			l.logger.Warn("mcp http: connection limit reached; closing new connections",
				"client", client, "open", l.open, "maxConnections", l.max, "maxConnectionsPerClient", l.perClient)
		}
		return false
	}
	l.open++
	l.byClient[client]++
	return true
}

func (l *connLimiter) release(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.byClient[client]--; l.byClient[client] <= 0 {
		delete(l.byClient, client)
	}
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
	release func()
}

func (c *limitedConn) Close() error {
	c.release()
	return c.Conn.Close()
}
