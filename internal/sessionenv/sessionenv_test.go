package sessionenv

import "testing"

func TestInsideAndEndpoint(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if Inside(get) {
		t.Fatal("no session variable: not inside a session")
	}
	if _, _, ok := Endpoint(get); ok {
		t.Fatal("no socket: not confined")
	}
	env[ID] = "s-1"
	if !Inside(get) {
		t.Fatal("THE_LOOP_SESSION set: inside a session")
	}
	env[Socket] = "/srv/s-1/box/loop.sock"
	if _, _, ok := Endpoint(get); ok {
		t.Fatal("a socket without a capability is no endpoint")
	}
	env[Capability] = "c0ffee"
	if s, c, ok := Endpoint(get); !ok || s != "/srv/s-1/box/loop.sock" || c != "c0ffee" {
		t.Fatalf("Endpoint = %q %q %v", s, c, ok)
	}
}
