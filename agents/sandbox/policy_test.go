package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGrantsCutProtectedPathsOutOfReadOnlyDirectories(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"etc/hosts", "etc/the-loop/config.yaml", "etc/the-loop/signing.key", "etc/ssl/certs/ca.pem", "etc/credstore/tok", "usr/bin/git"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(root, "etc/the-loop"), filepath.Join(root, "etc/alias")))
	require.NoError(t, os.Symlink(filepath.Join(root, "etc/ssl"), filepath.Join(root, "etc/ssl-alias")))
	work := filepath.Join(root, "work")
	require.NoError(t, os.Mkdir(work, 0o755))
	p := Policy{Workdir: work, ReadOnly: []string{filepath.Join(root, "etc"), filepath.Join(root, "usr")},
		Protected: []string{filepath.Join(root, "etc/the-loop/config.yaml"), filepath.Join(root, "etc/the-loop/signing.key"), filepath.Join(root, "etc/credstore")}}
	require.NoError(t, p.Check())
	g, err := p.Grants()
	require.NoError(t, err)
	read := append(append([]string{}, g.ReadDirs...), g.ReadFiles...)
	assert.Contains(t, read, filepath.Join(root, "usr"), "a directory holding nothing protected is granted whole")
	assert.Contains(t, read, filepath.Join(root, "etc/hosts"))
	assert.Contains(t, read, filepath.Join(root, "etc/ssl"), "a link is granted as its target when that is clear")
	assert.NotContains(t, read, filepath.Join(root, "etc"), "a directory holding a protected path is granted around it")
	for _, r := range read {
		for _, x := range p.Protected {
			assert.False(t, within(r, x) || within(x, r), "%s is granted though it overlaps protected %s", r, x)
		}
	}
	assert.NotContains(t, read, filepath.Join(root, "etc/the-loop"), "the directory of the protected files is cut")
	assert.False(t, slices.Contains(read, filepath.Join(root, "etc/alias")), "a link into a protected directory is not granted")
	assert.Contains(t, g.WriteDirs, work)
}

func TestCheckRefusesAPolicyThatWouldReachAProtectedPath(t *testing.T) {
	for name, p := range map[string]Policy{
		"writable holds it":   {Workdir: "/srv/tree", Writable: []string{"/var/lib"}, Protected: []string{"/var/lib/the-loop/the-loop.db"}},
		"workdir inside it":   {Workdir: "/var/lib/the-loop/trees/x", Protected: []string{"/var/lib/the-loop"}},
		"relative path":       {Workdir: "tree"},
		"root account":        {Workdir: "/srv/tree", Layers: []string{LayerUser}},
		"an unknown layer":    {Workdir: "/srv/tree", Layers: []string{"seccomp"}},
		"relative read-only":  {Workdir: "/srv/tree", ReadOnly: []string{"usr"}},
		"relative protection": {Workdir: "/srv/tree", Protected: []string{"key"}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Error(t, p.Check())
		})
	}
	assert.NoError(t, Policy{Workdir: "/srv/trees/issue-1", Writable: []string{"/srv/sessions/s-1/box"},
		Protected: []string{"/srv/the-loop.db", "/etc/the-loop"}}.Check())
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, Config{}.Validate("sessions"))
	assert.NoError(t, Config{Confinement: "none"}.Validate("sessions"))
	assert.EqualError(t, Config{Confinement: "strict"}.Validate("sessions"), `sessions.confinement: "strict" is not one of auto, none`)
	assert.EqualError(t, Config{Confinement: "none", User: "x"}.Validate("sessions"), "sessions.user: applies only when sessions are confined; remove it, or remove confinement: none")
	assert.EqualError(t, Config{Sandbox: Paths{Writable: []string{"cache"}}}.Validate("sessions"), `sessions.sandbox.writable[0]: "cache" is not an absolute path`)
}

func TestLookupAccount(t *testing.T) {
	a, err := LookupAccount("65534")
	require.NoError(t, err)
	assert.Equal(t, 65534, a.UID)
	a, err = LookupAccount("4000:4001")
	require.NoError(t, err)
	assert.Equal(t, Account{Name: "4000", UID: 4000, GID: 4001}, a)
	_, err = LookupAccount("root")
	assert.ErrorContains(t, err, "sessions need an account of their own")
	_, err = LookupAccount("0")
	assert.Error(t, err)
	_, err = LookupAccount("no-such-account-here")
	assert.ErrorContains(t, err, "is not an account on this host")
}
