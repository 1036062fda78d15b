package proc

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/envvar"
)

func lookupFrom(vars map[string]string) func(string) (string, bool) {
	return func(n string) (string, bool) {
		v, ok := vars[n]
		return v, ok
	}
}

var parentEnv = map[string]string{
	"PATH":                 "/usr/bin:/bin",
	"HOME":                 "/home/op",
	"LANG":                 "C.UTF-8",
	"GITHUB_TOKEN":         "ghp_parenttoken123",
	"THE_LOOP_SIGNING_KEY": "signing-key-value",
	"JIRA_EMAIL":           "op@example.com",
	"ANTHROPIC_API_KEY":    "sk-ant-xyz123456",
	"EDITOR":               "vi",
	"MY_TRACKER":           "tracker-secret-value",
}

func TestBuildEnv(t *testing.T) {
	tests := []struct {
		name        string
		spec        EnvSpec
		want        map[string]string
		wantSecrets []string
		wantErr     string
	}{
		{name: "basics only", spec: EnvSpec{},
			want: map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/op", "LANG": "C.UTF-8"}},
		{name: "no basics", spec: EnvSpec{NoBasics: true, Pass: []string{"EDITOR"}},
			want: map[string]string{"EDITOR": "vi"}},
		{name: "pass names an ordinary variable", spec: EnvSpec{Pass: []string{"EDITOR", "UNSET_VAR"}},
			want: map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/op", "LANG": "C.UTF-8", "EDITOR": "vi"}},
		{name: "secret named on purpose", spec: EnvSpec{NoBasics: true, Secrets: []string{"ANTHROPIC_API_KEY"}},
			want: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-xyz123456"}, wantSecrets: []string{"sk-ant-xyz123456"}},
		{name: "set values", spec: EnvSpec{NoBasics: true, Set: map[string]string{"THE_LOOP_WORK_ITEM": "issue-7"}},
			want: map[string]string{"THE_LOOP_WORK_ITEM": "issue-7"}},
		{name: "set overrides pass", spec: EnvSpec{NoBasics: true, Pass: []string{"EDITOR"}, Set: map[string]string{"EDITOR": "ed"}},
			want: map[string]string{"EDITOR": "ed"}},
		{name: "tracker token in pass is refused", spec: EnvSpec{Pass: []string{"GITHUB_TOKEN"}}, wantErr: `"GITHUB_TOKEN": holds a secret`},
		{name: "signing key in pass is refused", spec: EnvSpec{Pass: []string{"THE_LOOP_SIGNING_KEY"}}, wantErr: `"THE_LOOP_SIGNING_KEY": holds a secret`},
		{name: "sensitive name from config is refused", spec: EnvSpec{Pass: []string{"MY_TRACKER"}, Sensitive: []string{"my_tracker"}},
			wantErr: `"MY_TRACKER": holds a secret`},
		{name: "sensitive name in set is refused", spec: EnvSpec{Set: map[string]string{"MY_TRACKER": "x"}, Sensitive: []string{"MY_TRACKER"}},
			wantErr: `"MY_TRACKER": holds a secret`},
		{name: "malformed name", spec: EnvSpec{Pass: []string{"BAD-NAME"}}, wantErr: "not a valid variable name"},
		{name: "inherit keeps all but the secrets", spec: EnvSpec{NoBasics: true, Sensitive: []string{"MY_TRACKER", "JIRA_EMAIL"}, Inherit: []string{
			"PATH=/usr/bin:/bin", "GOFLAGS=-mod=mod", "GITHUB_TOKEN=ghp_parenttoken123", "THE_LOOP_SIGNING_KEY=k", "MY_TRACKER=t",
			"JIRA_EMAIL=op@example.com", "CREDENTIALS_DIRECTORY=/run/credentials/the-loop.service", "BASH_FUNC_x%%=() { :; }", "NOEQUALS"}},
			want: map[string]string{"PATH": "/usr/bin:/bin", "GOFLAGS": "-mod=mod"}},
		{name: "set applies after inherit", spec: EnvSpec{NoBasics: true, Inherit: []string{"EDITOR=vi"}, Set: map[string]string{"EDITOR": "ed"}},
			want: map[string]string{"EDITOR": "ed"}},
		{name: "malformed secret name", spec: EnvSpec{Secrets: []string{"1X"}}, wantErr: "not a valid variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := BuildEnv(tt.spec, lookupFrom(parentEnv))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var ee *EnvError
				assert.True(t, errors.As(err, &ee))
				return
			}
			require.NoError(t, err)
			got := map[string]string{}
			for _, n := range env.Names() {
				got[n], _ = env.Get(n)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantSecrets, env.SecretValues())
			assert.Len(t, env.List(), len(tt.want))
		})
	}
}

func TestNoBasicLooksSecret(t *testing.T) {
	for _, n := range Basics {
		assert.False(t, envvar.LooksSecret(n), "basic %s must not look secret", n)
	}
}

func TestSecretValuesOf(t *testing.T) {
	got := SecretValuesOf([]string{"GITHUB_TOKEN=abc", "PATH=/bin", "MY_TRACKER=xyz", "EMPTY_TOKEN=", "NOEQUALS"}, "MY_TRACKER")
	assert.ElementsMatch(t, []string{"abc", "xyz"}, got)
}

func TestRedact(t *testing.T) {
	secrets := []string{"sk-ant-xyz123456", "abc"}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"nothing secret", []string{"claude", "-p", "--model", "opus"}, []string{"claude", "-p", "--model", "opus"}},
		{"secret value as an argument", []string{"tool", "sk-ant-xyz123456"}, []string{"tool", Redacted}},
		{"secret value inside an argument", []string{"tool", "--header=Bearer sk-ant-xyz123456"}, []string{"tool", "--header=Bearer " + Redacted}},
		{"short secret only as a whole argument", []string{"abc", "abcdef"}, []string{Redacted, "abcdef"}},
		{"secret-looking flag with separate value", []string{"tool", "--api-key", "whatever", "--x"}, []string{"tool", "--api-key", Redacted, "--x"}},
		{"secret-looking flag with = value", []string{"tool", "--token=whatever"}, []string{"tool", "--token=" + Redacted}},
		{"single dash password", []string{"tool", "-password", "p"}, []string{"tool", "-password", Redacted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.in...)
			assert.Equal(t, tt.want, Redact(tt.in, secrets))
			assert.Equal(t, in, tt.in, "the input is not modified")
		})
	}
	assert.Equal(t, "key "+Redacted+" end", RedactText("key sk-ant-xyz123456 end", secrets))
}
