package config

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParse checks the operator config reader on any file: it is refused,
// or read into a config with every default applied and no negative bound,
// which written back as YAML reads the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"routing:\n  authorizedUsers: [alice]\n  control:\n    keywords:\n      start: go\n",
		"polling:\n  intervalSeconds: 30\n  sources:\n    - {system: github, repos: [o/r], checkout: /srv/x}\n",
		"mcp:\n  http:\n    maxSessions: 10\n    maxConnections: 20\n    oauth: {issuer: https://as.example.com}\n",
		"integrations:\n  requestTimeoutSeconds: -1\n",
		"integrations:\n  github:\n    token: ghp_x\n",
		"routing: [\n",
		"polling:\n  intervalSeconds: 1e9\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		if c.Polling.IntervalSeconds <= 0 || c.Polling.CycleTimeoutSeconds <= 0 || c.Integrations.RequestTimeoutSeconds <= 0 ||
			c.MCP.HTTP.MaxSessions <= 0 || c.MCP.HTTP.MaxConnections <= 0 || c.MCP.HTTP.MaxConnectionsPerClient <= 0 {
			t.Fatalf("%q read with a bound that is not positive: %+v", data, c)
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("the config read from %q cannot be written: %v", data, err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("the config read from %q, written back, is refused: %v\n%s", data, err, out)
		}
		back, err := yaml.Marshal(again)
		if err != nil || string(back) != string(out) {
			t.Fatalf("the config read from %q does not read back the same:\n%s\n---\n%s", data, out, back)
		}
	})
}
