package config

import (
	"os"
	"path/filepath"
	"strings"
)

// EnvCredentialsDirectory is the variable systemd sets, for a unit with
// LoadCredential= lines, to the private directory holding its credentials.
const EnvCredentialsDirectory = "CREDENTIALS_DIRECTORY"

// credentialSigningKey is the credential (and variable) that holds the
// signing key; runtime.EnvSigningKey names the same variable.
const credentialSigningKey = "THE_LOOP_SIGNING_KEY"

// WithCredentials returns getenv extended with systemd credentials: a
// variable that is unset or empty reads the credential of the same name in
// $CREDENTIALS_DIRECTORY, its surrounding whitespace trimmed. The environment
// always wins; without the directory, or without that credential, the lookup
// is getenv's. A credential's content is never copied into the environment,
// so it cannot reach a subprocess through it.
func WithCredentials(getenv func(string) string) func(string) string {
	return func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		p := CredentialPath(getenv, name)
		if p == "" {
			return ""
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
}

// CredentialPath is the file of credential name when $CREDENTIALS_DIRECTORY
// (read through getenv) holds a regular file of that name, else "". A name
// that is not a plain file name (empty, ".", "..", or with a slash) is never
// a credential.
func CredentialPath(getenv func(string) string, name string) string {
	dir := getenv(EnvCredentialsDirectory)
	if dir == "" || !filepath.IsAbs(dir) || !validCredentialName(name) {
		return ""
	}
	p := filepath.Join(dir, name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
}

func validCredentialName(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) < 256 &&
		!strings.ContainsAny(name, "/\x00")
}

// useCredentials points signing.keyFile at the THE_LOOP_SIGNING_KEY
// credential when systemd provides one, so a unit needs no key path in the
// config: the variable wins over the credential, the credential over the
// file the config names.
func (c *Config) useCredentials(getenv func(string) string) {
	if p := CredentialPath(getenv, credentialSigningKey); p != "" {
		c.Signing.KeyFile = p
	}
}
