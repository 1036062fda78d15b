package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
)

// credDir lays out a credentials directory the way systemd does: one
// read-only file per credential.
func credDir(t *testing.T, creds map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range creds {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(v), 0o400))
	}
	return dir
}

func lookup(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestWithCredentialsFallsBackToTheCredentialOfTheSameName(t *testing.T) {
	dir := credDir(t, map[string]string{"GITHUB_TOKEN": "ghp_from_credential\n", "EMPTY": "  \n"})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "A_DIRECTORY"), 0o700))
	tests := []struct {
		name string
		env  map[string]string
		key  string
		want string
	}{
		{"the environment wins", map[string]string{"CREDENTIALS_DIRECTORY": dir, "GITHUB_TOKEN": "ghp_env"}, "GITHUB_TOKEN", "ghp_env"},
		{"unset reads the credential, trimmed", map[string]string{"CREDENTIALS_DIRECTORY": dir}, "GITHUB_TOKEN", "ghp_from_credential"},
		{"empty reads the credential", map[string]string{"CREDENTIALS_DIRECTORY": dir, "GITHUB_TOKEN": ""}, "GITHUB_TOKEN", "ghp_from_credential"},
		{"a blank credential is empty", map[string]string{"CREDENTIALS_DIRECTORY": dir}, "EMPTY", ""},
		{"no such credential", map[string]string{"CREDENTIALS_DIRECTORY": dir}, "JIRA_API_TOKEN", ""},
		{"a directory is not a credential", map[string]string{"CREDENTIALS_DIRECTORY": dir}, "A_DIRECTORY", ""},
		{"no credentials directory", map[string]string{}, "GITHUB_TOKEN", ""},
		{"a relative credentials directory is ignored", map[string]string{"CREDENTIALS_DIRECTORY": "creds"}, "GITHUB_TOKEN", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, config.WithCredentials(lookup(tt.env))(tt.key))
		})
	}
}

func TestCredentialNamesCannotEscapeTheDirectory(t *testing.T) {
	root := t.TempDir()
	creds := filepath.Join(root, "creds")
	require.NoError(t, os.Mkdir(creds, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, "outside"), []byte("not a credential"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(creds, "inside"), []byte("ok"), 0o600))
	get := config.WithCredentials(lookup(map[string]string{"CREDENTIALS_DIRECTORY": creds}))
	for _, name := range []string{"../outside", "..", ".", "", "sub/inside", "inside\x00", "/" + filepath.Join(root, "outside")} {
		assert.Empty(t, get(name), "%q must not be read as a credential", name)
		assert.Empty(t, config.CredentialPath(lookup(map[string]string{"CREDENTIALS_DIRECTORY": creds}), name))
	}
	assert.Equal(t, "ok", get("inside"))
}

func TestLoadPointsTheSigningKeyAtItsCredential(t *testing.T) {
	assert.Equal(t, runtime.EnvSigningKey, "THE_LOOP_SIGNING_KEY", "the credential is named after the variable")
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(file, []byte("signing:\n  keyFile: /etc/the-loop/signing.key\n"), 0o600))

	t.Run("without credentials the file's path stands", func(t *testing.T) {
		t.Setenv("CREDENTIALS_DIRECTORY", "")
		c, err := config.Load(file, true)
		require.NoError(t, err)
		assert.Equal(t, "/etc/the-loop/signing.key", c.Signing.KeyFile)
	})
	t.Run("the credential wins over the file's path", func(t *testing.T) {
		creds := credDir(t, map[string]string{"THE_LOOP_SIGNING_KEY": "k"})
		t.Setenv("CREDENTIALS_DIRECTORY", creds)
		c, err := config.Load(file, true)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(creds, "THE_LOOP_SIGNING_KEY"), c.Signing.KeyFile)
	})
	t.Run("a missing default config still picks up the credential", func(t *testing.T) {
		creds := credDir(t, map[string]string{"THE_LOOP_SIGNING_KEY": "k"})
		t.Setenv("CREDENTIALS_DIRECTORY", creds)
		c, err := config.Load(filepath.Join(dir, "absent.yaml"), false)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(creds, "THE_LOOP_SIGNING_KEY"), c.Signing.KeyFile)
	})
	t.Run("other credentials leave the key alone", func(t *testing.T) {
		t.Setenv("CREDENTIALS_DIRECTORY", credDir(t, map[string]string{"GITHUB_TOKEN": "t"}))
		c, err := config.Load(file, true)
		require.NoError(t, err)
		assert.Equal(t, "/etc/the-loop/signing.key", c.Signing.KeyFile)
	})
}

func TestTheSigningKeyCredentialSignsDecisions(t *testing.T) {
	creds := credDir(t, map[string]string{"THE_LOOP_SIGNING_KEY": "operator-key\n"})
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	t.Setenv(runtime.EnvSigningKey, "")
	c, err := config.Load(filepath.Join(t.TempDir(), "absent.yaml"), false)
	require.NoError(t, err)
	signer, err := runtime.LoadSigner(c.Signing, nil)
	require.NoError(t, err)
	assert.True(t, signer.HasKey())
	want, err := runtime.LoadSigner(config.Signing{KeyFile: writeKey(t, "operator-key")}, nil)
	require.NoError(t, err)
	d := &runtime.Decision{Node: "design-approval", Kind: "approval", By: "alice"}
	require.NoError(t, signer.Sign(d))
	assert.Equal(t, runtime.Verified, want.Verify(d), "the credential's key is the one written to it")
}

func writeKey(t *testing.T, k string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(p, []byte(k), 0o600))
	return p
}
