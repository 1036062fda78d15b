package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func parseCritics(t *testing.T, doc string) (*CriticPolicy, error) {
	t.Helper()
	var c CriticPolicy
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&c))
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.ApplyDefaults()
	return &c, nil
}

func TestCriticPolicyDefaults(t *testing.T) {
	c, err := parseCritics(t, `
critics:
  - name: codex
    command: [codex, exec, --sandbox, read-only, -]
  - name: cursor
    command: [cursor-agent, -p, "{prompt}"]
    timeoutSeconds: 120
    env: [CURSOR_CONFIG_DIR]
    versionArgs: []
    maxOutputBytes: 1024
reviews:
  criticReviewCount: 2
`)
	require.NoError(t, err)
	require.Len(t, c.Critics, 2)
	assert.Equal(t, Critic{Name: "codex", Command: []string{"codex", "exec", "--sandbox", "read-only", "-"},
		TimeoutSeconds: DefaultCriticTimeoutSeconds, VersionArgs: []string{"--version"}, MaxOutputBytes: DefaultCriticMaxOutputBytes}, c.Critics[0])
	assert.Equal(t, Critic{Name: "cursor", Command: []string{"cursor-agent", "-p", "{prompt}"}, TimeoutSeconds: 120,
		Env: []string{"CURSOR_CONFIG_DIR"}, VersionArgs: []string{}, MaxOutputBytes: 1024}, c.Critics[1], "an explicit [] turns the probe off")
	assert.Equal(t, Reviews{SelfReviewCount: 3, CriticReviewCount: 2}, c.Reviews)
	assert.Equal(t, []string{"codex", "cursor"}, c.Names())
	got, ok := c.Find("cursor")
	assert.True(t, ok)
	assert.Equal(t, 120, got.TimeoutSeconds)
	_, ok = c.Find("claude")
	assert.False(t, ok)

	empty, err := parseCritics(t, "{}")
	require.NoError(t, err)
	assert.Empty(t, empty.Critics, "no critic exists unless the operator configures one")
	assert.Equal(t, Reviews{SelfReviewCount: 3, CriticReviewCount: 3}, empty.Reviews)
}

func TestCriticPolicyValidateNamesTheFieldAndTheFix(t *testing.T) {
	tests := []struct {
		name, doc, key, fix string
	}{
		{"missing name", "critics: [{command: [codex]}]", "critics[0].name", "name the critic"},
		{"bad name", "critics: [{name: 'Codex CLI', command: [codex]}]", "critics[0].name", "lower-case letters"},
		{"duplicate name", "critics: [{name: a, command: [x]}, {name: a, command: [y]}]", "critics[1].name", "own name"},
		{"no command", "critics: [{name: a}]", "critics[0].command", "give the program and its arguments"},
		{"blank program", "critics: [{name: a, command: ['  ']}]", "critics[0].command", "give the program"},
		{"placeholder as program", "critics: [{name: a, command: ['{prompt}']}]", "critics[0].command[0]", "name the executable"},
		{"relative path program", "critics: [{name: a, command: [./bin/review]}]", "critics[0].command[0]", "absolute path or a bare name"},
		{"unknown placeholder", "critics: [{name: a, command: [x, '{file}']}]", "critics[0].command[1]", "use {prompt_file}, {prompt} or {workdir}"},
		{"prompt twice", "critics: [{name: a, command: [x, '{prompt}', '--file={prompt_file}']}]", "critics[0].command", "once"},
		{"negative timeout", "critics: [{name: a, command: [x], timeoutSeconds: -5}]", "critics[0].timeoutSeconds", "leave it out for 600"},
		{"output cap too large", "critics: [{name: a, command: [x], maxOutputBytes: 99999999999}]", "critics[0].maxOutputBytes", "give 1 to"},
		{"bad env name", "critics: [{name: a, command: [x], env: ['1X']}]", "critics[0].env[0]", "name the variable to pass"},
		{"secret env name", "critics: [{name: a, command: [x], env: [OPENAI_API_KEY]}]", "critics[0].env[0]", "own login"},
		{"token env name", "critics: [{name: a, command: [x], env: [HOME_DIR, GITHUB_TOKEN]}]", "critics[0].env[1]", "never gets one"},
		{"placeholder in probe", "critics: [{name: a, command: [x], versionArgs: ['{workdir}']}]", "critics[0].versionArgs[0]", "remove the placeholder"},
		{"negative self cap", "reviews: {selfReviewCount: -1}", "reviews.selfReviewCount", "leave it out for 3"},
		{"negative critic cap", "reviews: {criticReviewCount: -2}", "reviews.criticReviewCount", "1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCritics(t, tt.doc)
			require.Error(t, err)
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, tt.key, fe.Key)
			assert.Contains(t, err.Error(), tt.fix)
		})
	}
}

func TestCriticPolicyAcceptsEveryPlaceholder(t *testing.T) {
	for _, cmd := range []string{
		"[/usr/local/bin/critic, '--prompt-file={prompt_file}', --cd, '{workdir}']",
		"[critic, -p, '{prompt}']",
		"[critic, review, -]",
		`[critic, -c, '{"sandbox":"read-only"}', '{prompt}']`,
	} {
		_, err := parseCritics(t, "critics: [{name: a, command: "+cmd+"}]")
		assert.NoError(t, err, cmd)
	}
}
