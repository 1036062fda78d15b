package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
)

type handoffRun struct {
	env            *Env
	stdout, stderr *bytes.Buffer
}

func newHandoffRun(t *testing.T, stdin string) *handoffRun {
	t.Helper()
	var out, errb bytes.Buffer
	return &handoffRun{
		env:    &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Cwd: t.TempDir()},
		stdout: &out, stderr: &errb,
	}
}

// code runs `the-loop handoff <verb> args...` and returns its exit code.
func (r *handoffRun) code(verb string, args ...string) int {
	return Main(context.Background(), r.env, append([]string{"handoff", verb}, args...))
}

func handoffWriteFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

const handoffRecordJSON = `{
  "version": 1,
  "stage": "requirements-settled",
  "enter": "requirements-approval",
  "artifacts": [
    {"name": "brainstorm.md", "sha256": "%s"},
    {"name": "requirements.md", "sha256": "%s"}
  ],
  "carriedBy": "branch",
  "branch": "the-loop/issue-42-x",
  "pullRequest": 43,
  "specArtifact": "https://claude.ai/artifact/abc",
  "source": "Claude chat · 2026-10-21",
  "approvedInChat": ["brainstorm.md"],
  "mirror": "jira:acme/PROJ-123",
  "confirmation": "> yes, file it"
}`

func handoffSampleJSON(extra string) string {
	h1 := handoff.HashLF([]byte("# b\n"))
	h2 := handoff.HashLF([]byte("# r\n"))
	s := strings.Replace(strings.Replace(handoffRecordJSON, "%s", h1, 1), "%s", h2, 1)
	if extra != "" {
		s = strings.Replace(s, `"version": 1,`, `"version": 1, `+extra+`,`, 1)
	}
	return s
}

func TestHandoffRenderThenParseRoundTrip(t *testing.T) {
	r := newHandoffRun(t, "")
	in := handoffWriteFile(t, r.env.Cwd, "rec.json", handoffSampleJSON(""))
	require.Equal(t, 0, r.code("render", "--record", "rec.json"), r.stderr.String())
	wire := r.stdout.String()
	assert.True(t, strings.HasPrefix(wire, handoff.RecordMarker+"\n"))

	p := newHandoffRun(t, wire)
	require.Equal(t, 0, p.code("parse", "-"), p.stderr.String())
	var want, got map[string]any
	raw, err := os.ReadFile(in)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &want))
	require.NoError(t, json.Unmarshal(p.stdout.Bytes(), &got))
	assert.Equal(t, want, got, "render then parse returns the same record")
}

func TestHandoffRenderTicketWithPartsToDirectory(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	for i, a := range rec.Artifacts {
		files[a.Name] = strings.Repeat("```\n"+a.Name+" line with ``` inside\n", 2500)
		rec.Artifacts[i].SHA256 = handoff.HashLF([]byte(files[a.Name]))
	}
	r := newHandoffRun(t, "")
	js, err := handoff.EncodeJSON(rec)
	require.NoError(t, err)
	handoffWriteFile(t, r.env.Cwd, "rec.json", string(js))
	handofftest.WriteFiles(t, filepath.Join(r.env.Cwd, "files"), files)

	require.Equal(t, 0, r.code("render", "--record", "rec.json", "--files", "files", "--out", "out"), r.stderr.String())
	paths := strings.Fields(r.stdout.String())
	require.Greater(t, len(paths), 2, "the bodies need continuation parts")
	assert.Equal(t, filepath.Join(r.env.Cwd, "out", "record.md"), paths[0])
	assert.Equal(t, filepath.Join(r.env.Cwd, "out", "part-1.md"), paths[1])

	p := newHandoffRun(t, "")
	p.env.Cwd = r.env.Cwd
	require.Equal(t, 0, p.code("parse", paths...), p.stderr.String())
	assert.JSONEq(t, string(js), p.stdout.String())
}

func TestHandoffParseRejects(t *testing.T) {
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled})
	out, err := handoff.Render(rec)
	require.NoError(t, err)
	bad := strings.Replace(out[0], "enter: design-approval", "enter: implementation", 1)

	r := newHandoffRun(t, "")
	handoffWriteFile(t, r.env.Cwd, "bad.md", bad)
	assert.Equal(t, 1, r.code("parse", "bad.md"))
	assert.Empty(t, r.stdout.String())
	assert.Contains(t, r.stderr.String(), "enter-not-allowed")
	assert.Contains(t, r.stderr.String(), "implementation")

	u := newHandoffRun(t, "")
	assert.Equal(t, 2, u.code("parse"))
	assert.Contains(t, u.stderr.String(), "needs FILE")

	m := newHandoffRun(t, "")
	assert.Equal(t, 1, m.code("parse", "missing.md"))
	assert.Contains(t, m.stderr.String(), "missing.md")
}

func TestHandoffRenderRefusesWithParseReasons(t *testing.T) {
	cases := []struct {
		name string
		json string
		args []string
		code int
		msg  string
	}{
		{"enter implementation", strings.Replace(handoffSampleJSON(""), `"enter": "requirements-approval"`, `"enter": "implementation"`, 1), nil, 1, "enter-not-allowed"},
		{"path as artifact name", strings.Replace(handoffSampleJSON(""), `"brainstorm.md", "sha256"`, `"../x.md", "sha256"`, 1), nil, 1, "unknown-artifact"},
		{"prefixed hash", strings.Replace(handoffSampleJSON(""), `"sha256": "`, `"sha256": "sha256:`, 1), nil, 1, "drop the sha256: prefix"},
		{"unknown field", handoffSampleJSON(`"skip": ["design"]`), nil, 1, "unknown field"},
		{"trailing data", handoffSampleJSON("") + "{}", nil, 1, "trailing data"},
		{"ticket without --files", strings.Replace(strings.Replace(strings.Replace(handoffSampleJSON(""), `"carriedBy": "branch"`, `"carriedBy": "ticket"`, 1), `"branch": "the-loop/issue-42-x",`, "", 1), `"pullRequest": 43,`, "", 1), nil, 2, "--files"},
		{"--files on a branch record", handoffSampleJSON(""), []string{"--files", "."}, 2, "only for carried-by ticket"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newHandoffRun(t, "")
			handoffWriteFile(t, r.env.Cwd, "rec.json", tc.json)
			args := append([]string{"--record", "rec.json"}, tc.args...)
			assert.Equal(t, tc.code, r.code("render", args...))
			assert.Empty(t, r.stdout.String())
			assert.Contains(t, r.stderr.String(), tc.msg)
		})
	}
	r := newHandoffRun(t, "")
	assert.Equal(t, 2, r.code("render"))
	assert.Contains(t, r.stderr.String(), "--record")
}

func TestHandoffRenderAcceptsStateBlockFields(t *testing.T) {
	r := newHandoffRun(t, "")
	handoffWriteFile(t, r.env.Cwd, "rec.json", handoffSampleJSON(`"author": "dev", "commentUrl": "https://github.com/a/b/issues/1#issuecomment-2", "recordedAt": "2026-10-21T09:00:00Z"`))
	require.Equal(t, 0, r.code("render", "--record", "rec.json"), r.stderr.String())
	assert.NotContains(t, r.stdout.String(), "dev\n", "the author is never written into the record")
	assert.NotContains(t, r.stdout.String(), "author")
}
