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
func normalizeAddr(addr string) (string, error) { return NormalizeAddr("--http", addr) }

// NormalizeAddr turns the value of the address flag named flag into
// host:port, defaulting the host to loopback (":8765" and "8765" both mean
// 127.0.0.1:8765).
func NormalizeAddr(flag, addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", fmt.Errorf("%s: give an address such as 127.0.0.1:8765", flag)
	}
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%s %q: not HOST:PORT (for example 127.0.0.1:8765): %w", flag, addr, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%s %q: port %q is not a number from 0 to 65535", flag, addr, port)
	}
	if host == "" {
		host = DefaultHTTPHost
	}
	return net.JoinHostPort(host, port), nil
}

func isLoopback(hostport string) bool { return IsLoopback(hostport) }

// IsLoopback reports whether host:port names only the loopback interface.
// "0.0.0.0", "::" and any name other than localhost are not loopback.
func IsLoopback(hostport string) bool {
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
