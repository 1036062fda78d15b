package httpx

import (
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

var errBase = errors.New("base")

func TestRedactor(t *testing.T) {
	r := NewRedactor("ghp_secretvalue", "", "ab")
	r.AddBasic("me@example.com", "jira-token-1")
	basic := base64.StdEncoding.EncodeToString([]byte("me@example.com:jira-token-1"))
	tests := []struct {
		in, want string
	}{
		{"token ghp_secretvalue leaked", "token [REDACTED] leaked"},
		{"Basic " + basic, "Basic [REDACTED]"},
		{"ab stays: short values are not secrets", "ab stays: short values are not secrets"},
		{"nothing here", "nothing here"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, r.String(tc.in))
	}
}

func TestRedactorErrorKeepsTheChain(t *testing.T) {
	r := NewRedactor("ghp_secretvalue")
	err := r.Error(fmt.Errorf("call with ghp_secretvalue: %w", errBase))
	assert.Equal(t, "call with [REDACTED]: base", err.Error())
	assert.ErrorIs(t, err, errBase)

	clean := fmt.Errorf("clean: %w", errBase)
	assert.Same(t, clean, r.Error(clean), "an error without secrets is returned unchanged")
	assert.NoError(t, r.Error(nil))
	var nilR *Redactor
	assert.Equal(t, "x", nilR.String("x"))
}
