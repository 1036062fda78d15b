package critic

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListSaysWhichCriticsCanRun(t *testing.T) {
	r := newRig(t)
	r.runner.ProbeTimeout = 500 * time.Millisecond
	r.env["PATH"] = filepath.Dir(r.fake) + ":/usr/bin:/bin"
	critics := []Critic{
		{Name: "codex", Command: []string{r.fake, "exec", "-"}},
		{Name: "bare", Command: []string{filepath.Base(r.fake)}},
		{Name: "unprobed", Command: []string{r.fake}, VersionArgs: []string{}},
		{Name: "missing", Command: []string{"codex-not-installed-here"}},
		{Name: "signed-out", Command: []string{r.fake}, VersionArgs: []string{"--version", "--fail"}},
		{Name: "stuck", Command: []string{r.fake}, VersionArgs: []string{"--version", "--hang"}},
		{Name: "bad", Command: []string{"./relative"}},
	}
	got := r.runner.List(context.Background(), critics)
	require.Len(t, got, len(critics))
	want := []Status{
		{Name: "codex", Command: critics[0].Command, Path: r.fake, Version: "fakecritic 1.4.2", Available: true},
		{Name: "bare", Command: critics[1].Command, Path: r.fake, Version: "fakecritic 1.4.2", Available: true},
		{Name: "unprobed", Command: critics[2].Command, Path: r.fake, Available: true},
	}
	assert.Equal(t, want, got[:3])

	for i, tt := range []struct {
		name, want string
	}{
		{"missing", `executable "codex-not-installed-here" not found on the critic's PATH`},
		{"signed-out", "version probe `" + r.fake + " --version --fail` ended with exit 2: fakecritic: not signed in"},
		{"stuck", "version probe `" + r.fake + " --version --hang` did not finish within 500ms"},
		{"bad", "not runnable as configured: critic.command[0]"},
	} {
		st := got[3+i]
		assert.Equal(t, tt.name, st.Name)
		assert.False(t, st.Available, tt.name)
		assert.Contains(t, st.Unavailable, tt.want, tt.name)
		assert.Empty(t, st.Version)
	}

	blob, err := json.Marshal(got[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"codex","command":["`+r.fake+`","exec","-"],"path":"`+r.fake+`","version":"fakecritic 1.4.2","available":true,"unavailable":""}`, string(blob))
}

func TestListOfNoCriticsIsEmpty(t *testing.T) {
	r := newRig(t)
	assert.Empty(t, r.runner.List(context.Background(), nil))
}
