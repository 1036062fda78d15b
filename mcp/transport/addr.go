package transport

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// DefaultHTTPHost is the interface --http binds when the address names
// only a port.
const DefaultHTTPHost = "127.0.0.1"

// normalizeAddr turns an --http value into host:port, defaulting the host
// to loopback (":8765" and "8765" both mean 127.0.0.1:8765).
func normalizeAddr(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", fmt.Errorf("--http: give an address such as 127.0.0.1:8765")
	}
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %q: not HOST:PORT (for example 127.0.0.1:8765): %w", addr, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("--http %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "" {
		host = DefaultHTTPHost
	}
	return net.JoinHostPort(host, port), nil
}

// isLoopback reports whether host:port names only the loopback interface.
// "0.0.0.0", "::" and any name other than localhost are not loopback.
func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
