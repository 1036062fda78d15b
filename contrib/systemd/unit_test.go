// Package systemd_test checks the shipped systemd unit: its hardening, that
// docs/poller.md installs exactly what it reads, and (as root) that the
// poller starts as an unprivileged user laid out the way the unit says.
package systemd_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const unitName = "the-loop-poller.service"

// entry is one key=value line of a unit file.
type entry struct{ section, key, value string }

// unit is a parsed unit file, its lines in order (keys may repeat).
type unit []entry

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var u unit
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
		default:
			k, v, ok := strings.Cut(line, "=")
			require.True(t, ok, "unit line without '=': %q", line)
			require.False(t, strings.HasSuffix(v, `\`), "continuation lines are not expected: %q", line)
			u = append(u, entry{section, strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	require.NoError(t, sc.Err())
	return u
}

// all returns every value of a [Service] key, in order.
func (u unit) all(key string) []string {
	var out []string
	for _, e := range u {
		if e.section == "Service" && e.key == key {
			out = append(out, e.value)
		}
	}
	return out
}

// one returns the single value of a [Service] key.
func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	v := u.all(key)
	require.Len(t, v, 1, "[Service] %s= should appear once", key)
	return v[0]
}

// credential is one LoadCredential=ID:PATH line.
type credential struct{ id, path string }

func (c credential) absolute() bool { return filepath.IsAbs(c.path) }

func (u unit) credentials(t *testing.T) []credential {
	t.Helper()
	var out []credential
	for _, v := range u.all("LoadCredential") {
		id, path, ok := strings.Cut(v, ":")
		require.True(t, ok, "LoadCredential=%s names no source", v)
		out = append(out, credential{id, path})
	}
	return out
}

func shippedUnit(t *testing.T) unit { return parseUnit(t, unitName) }

func TestUnitIsHardenedAndKeepsSecretsOutOfItself(t *testing.T) {
	u := shippedUnit(t)
	for key, want := range map[string]string{
		"Type":                    "notify",
		"UMask":                   "0077",
		"CapabilityBoundingSet":   "",
		"AmbientCapabilities":     "",
		"NoNewPrivileges":         "yes",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
		"SystemCallArchitectures": "native",
		"SystemCallErrorNumber":   "EPERM",
		"StateDirectoryMode":      "0700",
	} {
		assert.Equal(t, want, u.one(t, key), key)
	}
	assert.Equal(t, []string{"@system-service @mount landlock_create_ruleset landlock_add_rule landlock_restrict_self", "~@privileged"}, u.all("SystemCallFilter"),
		"the session launcher mounts a fresh /proc and applies Landlock (named calls: systemd before 256 has no @sandbox group)")
	assert.Equal(t, "user pid mnt", u.one(t, "RestrictNamespaces"), "sessions get namespaces of their own, nothing else")
	assert.Empty(t, u.all("EnvironmentFile"), "secrets come from credentials, not an environment file")
	assert.Empty(t, u.all("ReadWritePaths"), "the service writes only its state directory")
	assert.Empty(t, u.all("DynamicUser"), "checkouts need a stable owner: the unit runs as a declared user")
	for _, v := range u.all("Environment") {
		assert.NotRegexp(t, `(?i)token|key|secret|webhook|password`, v, "no secret in Environment=")
	}
	assert.Contains(t, u.one(t, "ExecStart"), "--config ${CREDENTIALS_DIRECTORY}/config.yaml")
	ids := map[string]bool{}
	for _, c := range u.credentials(t) {
		ids[c.id] = true
	}
	for _, id := range []string{"config.yaml", "THE_LOOP_SIGNING_KEY", "GITHUB_TOKEN", "JIRA_EMAIL", "JIRA_API_TOKEN", "SLACK_WEBHOOK_URL", "ANTHROPIC_API_KEY"} {
		assert.True(t, ids[id], "LoadCredential=%s is missing", id)
	}
}

// sysuser is the u line of the shipped sysusers file.
func sysuser(t *testing.T) (name, home string) {
	t.Helper()
	b, err := os.ReadFile("the-loop.sysusers")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "u ") {
			m := regexp.MustCompile(`^u\s+(\S+)\s+\S+\s+"[^"]*"\s+(\S+)$`).FindStringSubmatch(line)
			require.NotNil(t, m, "sysusers line %q", line)
			return m[1], m[2]
		}
	}
	t.Fatal("the-loop.sysusers declares no user")
	return "", ""
}

func TestServiceUserOwnsTheStateDirectory(t *testing.T) {
	u := shippedUnit(t)
	name, home := sysuser(t)
	assert.Equal(t, name, u.one(t, "User"))
	assert.Equal(t, name, u.one(t, "Group"))
	assert.Equal(t, "/var/lib/"+u.one(t, "StateDirectory"), home, "the user's home is the state directory")
	assert.Equal(t, "%S/"+u.one(t, "StateDirectory"), u.one(t, "WorkingDirectory"))
}

func TestSysusersCreatesTheServiceUser(t *testing.T) {
	bin, err := exec.LookPath("systemd-sysusers")
	if err != nil {
		t.Skip("systemd-sysusers is not installed")
	}
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "etc"), 0o755))
	f, err := os.Open("the-loop.sysusers")
	require.NoError(t, err)
	defer f.Close()
	cmd := exec.Command(bin, "--root="+root, "-")
	cmd.Stdin = f
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	passwd, err := os.ReadFile(filepath.Join(root, "etc", "passwd"))
	require.NoError(t, err)
	name, home := sysuser(t)
	assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(name)+`:x:\d+:\d+:[^:]*:`+regexp.QuoteMeta(home)+`:`, string(passwd))
}

// installSection is docs/poller.md's "Under systemd" section and its first
// sh block (the install steps).
func installSection(t *testing.T) (section, steps string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "poller.md"))
	require.NoError(t, err)
	doc := string(b)
	i := strings.Index(doc, "## Under systemd")
	require.GreaterOrEqual(t, i, 0, "docs/poller.md has no 'Under systemd' section")
	section = doc[i:]
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	require.NotNil(t, m, "the section has no sh block")
	return section, m[1]
}

func TestInstallStepsMatchTheUnit(t *testing.T) {
	u := shippedUnit(t)
	section, steps := installSection(t)
	name, home := sysuser(t)
	has := func(pattern, why string) {
		t.Helper()
		assert.Regexp(t, "(?m)"+pattern, steps, why)
	}
	bin := strings.Fields(u.one(t, "ExecStart"))[0]
	has(`^sudo install -m 0755 \S+ `+regexp.QuoteMeta(bin)+`$`, "the binary ExecStart runs is installed")
	has(`^sudo install -m 0644 contrib/systemd/the-loop.sysusers /etc/sysusers.d/the-loop.conf$`, "the user is declared")
	has(`^sudo systemd-sysusers /etc/sysusers.d/the-loop.conf$`, "the user is created")
	has(`^sudo install -m 0644 contrib/systemd/`+regexp.QuoteMeta(unitName)+` /etc/systemd/system/`+regexp.QuoteMeta(unitName)+`$`, "the unit is installed")
	has(`^sudo systemctl enable --now `+strings.TrimSuffix(unitName, ".service")+`$`, "the unit is started")
	has(`^sudo install -d -o `+name+` -g `+name+` -m `+u.one(t, "StateDirectoryMode")+` `+regexp.QuoteMeta(home)+` `, "the state directory belongs to the user")
	has(`^sudo -u `+name+` -H git clone \S+ `+regexp.QuoteMeta(home)+`/checkouts/\S+$`, "checkouts are cloned by the user, under the state directory")
	has(`^sudo install -d -m 0700 .*/etc/credstore`, "the credential store is root-only")
	for _, c := range u.credentials(t) {
		if c.absolute() {
			has(`^.*sudo install -m 0600 \S+ `+regexp.QuoteMeta(c.path)+`$`, "required credential "+c.id+" is installed root-only")
			assert.Contains(t, section, "| `"+c.path+"` | `"+c.id+"` |", "the credentials table lists "+c.id)
			continue
		}
		assert.Contains(t, section, "| `/etc/credstore/"+c.path+"` | `"+c.id+"` |", "the credentials table lists "+c.id)
	}
	has(`^printf '%s' "\$GITHUB_TOKEN" \| sudo install -m 0600 /dev/stdin /etc/credstore/the-loop.github-token$`, "a token is written root-only")
	assert.NotContains(t, steps, "/etc/the-loop/env", "no environment file is installed")
	assert.NotContains(t, section, "/srv/", "checkouts live in the state directory")
}

func TestConfigExampleKeepsCheckoutsInTheStateDirectory(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "poller.md"))
	require.NoError(t, err)
	_, home := sysuser(t)
	m := regexp.MustCompile(`(?m)^\s+checkout: (\S+)`).FindAllStringSubmatch(string(b), -1)
	require.NotEmpty(t, m)
	for _, c := range m {
		assert.True(t, strings.HasPrefix(c[1], home+"/checkouts/"), "checkout %s is outside %s/checkouts", c[1], home)
	}
}
