package envvar

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLooksSecret(t *testing.T) {
	secret := []string{"GITHUB_TOKEN", "GH_TOKEN", "JIRA_API_TOKEN", "THE_LOOP_SIGNING_KEY", "ANTHROPIC_API_KEY", "aws_secret_access_key",
		"SLACK_WEBHOOK_URL", "DB_PASSWORD", "SSH_AUTH_SOCK", "NPM_AUTH", "PRIVATE_KEY_FILE", "SENTRY_DSN", "GIT_PAT", "MY_PASS", "OPENAI_APIKEY",
		"SESSION_COOKIE", "CREDENTIALS_JSON", "CREDENTIALS_DIRECTORY"}
	plain := []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TERM", "SHELL", "XDG_CONFIG_HOME", "THE_LOOP_WORK_ITEM",
		"PWD", "EDITOR", "GOPATH", "KEYBOARD_LAYOUT"}
	for _, n := range secret {
		assert.True(t, LooksSecret(n), n)
	}
	for _, n := range plain {
		assert.False(t, LooksSecret(n), n)
	}
}

func TestValid(t *testing.T) {
	for _, n := range []string{"PATH", "_X", "a1", "LC_ALL", "X_" + "0123456789012345678901234567890123456789012345678901234567890123456789"} {
		assert.True(t, Valid(n), n)
	}
	for _, n := range []string{"", "1X", "BAD-NAME", "A B", "A=B", "BASH_FUNC_x%%", "É"} {
		assert.False(t, Valid(n), n)
	}
}
