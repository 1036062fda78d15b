package continuity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactSecrets(t *testing.T) {
	tests := []struct{ in, secret string }{
		{"pushed with ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnopqrstuvwxyz0123"},
		{"pat github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_11ABCDEFG0123456789_abcdefghij"},
		{"slack xoxb-1234567890-abcdef", "xoxb-1234567890-abcdef"},
		{"aws AKIAABCDEFGHIJKLMNOP here", "AKIAABCDEFGHIJKLMNOP"},
		{"header Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload", "eyJhbGciOiJIUzI1NiJ9.payload"},
		{"set api_key=sk-live-0123456789", "sk-live-0123456789"},
		{"clone https://user:hunter22@github.com/acme/widgets", "hunter22"},
	}
	for _, tt := range tests {
		t.Run(tt.secret, func(t *testing.T) {
			got := redactSecrets(tt.in)
			assert.NotContains(t, got, tt.secret)
			assert.Contains(t, got, "[redacted]")
		})
	}
	assert.Equal(t, "the token count was 12", redactSecrets("the token count was 12"), "ordinary prose is untouched")
}

func TestSecretsNeverPackaged(t *testing.T) {
	s, _ := newLive(t)
	secret := "ghp_abcdefghijklmnopqrstuvwxyz0123"
	_, err := s.Update(Entry{Kind: KindDiscovery, Text: "CI used token " + secret, Next: "rotate " + secret})
	require.NoError(t, err)
	b, err := s.Brief(BriefOptions{})
	require.NoError(t, err)
	assert.NotContains(t, b.Text, secret)
	p, err := s.Prompt(PromptOptions{Task: "Rotate the CI credential " + secret})
	require.NoError(t, err)
	assert.NotContains(t, p.Text, secret)
	assert.NotContains(t, p.Title, secret, "the title comes from redacted text too")
	assert.True(t, strings.Contains(b.Text, "[redacted]"))
}
