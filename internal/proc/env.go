package proc

import (
	"fmt"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/internal/envvar"
)

// Basics are the variables a child inherits from the parent when they are
// set, unless EnvSpec.NoBasics: enough to find programs (PATH), a home and
// user (HOME, USER, LOGNAME, SHELL), locale and time zone (LANG, LANGUAGE,
// LC_*, TZ), a temporary directory (TMPDIR), a terminal type (TERM) and the
// XDG base directories. None of them holds a secret.
var Basics = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
	"TZ", "TMPDIR", "TERM",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
}

// EnvSpec says which variables a child gets. Nothing else reaches it.
type EnvSpec struct {
	// Pass names variables copied from the parent when set. Basics are
	// added unless NoBasics. A name that holds a secret (envvar.LooksSecret, or
	// listed in Sensitive) is refused here: name it in Secrets instead.
	Pass []string
	// NoBasics leaves Basics out.
	NoBasics bool
	// Secrets names variables the operator passes on purpose although they
	// hold secrets. Their values are reported by Env.SecretValues so they
	// can be redacted from anything recorded.
	Secrets []string
	// Sensitive names variables known to hold secrets beyond what
	// envvar.LooksSecret recognises (e.g. the variable a config names as holding
	// the tracker token). They are refused in Pass and Set.
	Sensitive []string
	// Set are fixed values, applied after Pass and Secrets.
	Set map[string]string
	// Inherit is the parent's whole environment (os.Environ()) for the one
	// child that takes it rather than an allow-list: a repository's test
	// command, whose toolchain needs variables nobody can list beforehand.
	// Every variable in it is passed except one that holds a secret
	// (envvar.LooksSecret, which covers systemd's CREDENTIALS_DIRECTORY, or
	// Sensitive) or has a malformed name; Pass, Secrets and Set apply after.
	Inherit []string
}

// Env is a child's complete environment.
type Env struct {
	vars    map[string]string
	secrets []string
}

// EnvError is a refused variable name.
type EnvError struct {
	Name   string
	Reason string
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("environment variable %q: %s", e.Name, e.Reason)
}

// BuildEnv builds a child environment from spec, reading the parent's
// values through lookup (os.LookupEnv in production). It refuses a
// malformed name and a secret named outside spec.Secrets.
func BuildEnv(spec EnvSpec, lookup func(string) (string, bool)) (*Env, error) {
	sensitive := map[string]bool{}
	for _, n := range spec.Sensitive {
		sensitive[strings.ToUpper(n)] = true
	}
	secretOK := map[string]bool{}
	for _, n := range spec.Secrets {
		if !envvar.Valid(n) {
			return nil, &EnvError{Name: n, Reason: envvar.Invalid}
		}
		secretOK[n] = true
	}
	isSecret := func(n string) bool { return envvar.LooksSecret(n) || sensitive[strings.ToUpper(n)] }

	e := &Env{vars: map[string]string{}}
	for _, kv := range spec.Inherit {
		if n, v, ok := strings.Cut(kv, "="); ok && envvar.Valid(n) && !isSecret(n) {
			e.vars[n] = v
		}
	}
	var pass []string
	if !spec.NoBasics {
		pass = append(pass, Basics...)
	}
	pass = append(pass, spec.Pass...)
	for _, n := range pass {
		if !envvar.Valid(n) {
			return nil, &EnvError{Name: n, Reason: envvar.Invalid}
		}
		if isSecret(n) && !secretOK[n] {
			return nil, &EnvError{Name: n, Reason: "holds a secret; a child never gets it unless it is named as a secret on purpose"}
		}
		if v, ok := lookup(n); ok {
			e.vars[n] = v
		}
	}
	for _, n := range spec.Secrets {
		if v, ok := lookup(n); ok {
			e.vars[n] = v
			if v != "" {
				e.secrets = append(e.secrets, v)
			}
		}
	}
	for n, v := range spec.Set {
		if !envvar.Valid(n) {
			return nil, &EnvError{Name: n, Reason: envvar.Invalid}
		}
		if isSecret(n) && !secretOK[n] {
			return nil, &EnvError{Name: n, Reason: "holds a secret; a child never gets it unless it is named as a secret on purpose"}
		}
		e.vars[n] = v
		if secretOK[n] && v != "" {
			e.secrets = append(e.secrets, v)
		}
	}
	return e, nil
}

// List returns the environment as sorted NAME=value pairs, ready for
// Command.Env or Spec.Env.
func (e *Env) List() []string {
	out := make([]string, 0, len(e.vars))
	for n, v := range e.vars {
		out = append(out, n+"="+v)
	}
	sort.Strings(out)
	return out
}

// Get returns one variable's value.
func (e *Env) Get(name string) (string, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// Names returns the variable names, sorted.
func (e *Env) Names() []string {
	out := make([]string, 0, len(e.vars))
	for n := range e.vars {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// SecretValues returns the values of the secrets passed on purpose, for
// Redact.
func (e *Env) SecretValues() []string { return append([]string(nil), e.secrets...) }

// SecretValuesOf returns the non-empty values the parent holds in secret
// variables: every set variable whose name LooksSecret, plus the named
// sensitive ones. Recorders redact these even though no child gets them.
func SecretValuesOf(environ []string, sensitive ...string) []string {
	named := map[string]bool{}
	for _, n := range sensitive {
		named[strings.ToUpper(n)] = true
	}
	var out []string
	for _, kv := range environ {
		n, v, ok := strings.Cut(kv, "=")
		if ok && v != "" && (envvar.LooksSecret(n) || named[strings.ToUpper(n)]) {
			out = append(out, v)
		}
	}
	return out
}
