package handoff_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
)

func designRecord() (handoff.Record, map[string]string) {
	return handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled})
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func TestMaterializeFromDirectory(t *testing.T) {
	rec, files := designRecord()
	src := t.TempDir()
	crlf := map[string]string{}
	for k, v := range files {
		crlf[k] = strings.ReplaceAll(v, "\n", "\r\n")
	}
	handofftest.WriteFiles(t, src, crlf)
	dst := filepath.Join(t.TempDir(), "docs", "specs", "42")

	written, err := handoff.Materialize(dst, rec, handoff.DirSource(src))
	require.NoError(t, err)
	assert.Equal(t, rec.Names(), written)
	assert.Equal(t, []string{"brainstorm.md", "design.md", "requirements.md", "testing-plan.md"}, dirNames(t, dst), "no temporary files remain")
	for name, body := range files {
		got, err := os.ReadFile(filepath.Join(dst, name))
		require.NoError(t, err)
		assert.Equal(t, body, string(got), "%s is written with LF endings", name)
	}
}

func TestMaterializeInPlaceOnTheBranch(t *testing.T) {
	rec, files := designRecord()
	dst := t.TempDir()
	handofftest.WriteFiles(t, dst, files)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for name := range files {
		require.NoError(t, os.Chtimes(filepath.Join(dst, name), old, old))
	}
	written, err := handoff.Materialize(dst, rec, handoff.DirSource(dst))
	require.NoError(t, err)
	assert.Equal(t, rec.Names(), written)
	for name := range files {
		st, err := os.Stat(filepath.Join(dst, name))
		require.NoError(t, err)
		assert.True(t, st.ModTime().Equal(old), "%s already verified, so it is not rewritten", name)
	}
}

func TestMaterializeWritesNothingUnverifiable(t *testing.T) {
	rec, files := designRecord()
	cases := []struct {
		name  string
		setup func(t *testing.T, src string)
		is    error
		msg   string
	}{
		{"hash mismatch", func(t *testing.T, src string) {
			handofftest.WriteFiles(t, src, handofftest.Tampered(files, handoff.DesignDoc))
		}, handoff.ErrHashMismatch, "design.md"},
		{"missing file", func(t *testing.T, src string) {
			handofftest.WriteFiles(t, src, files)
			require.NoError(t, os.Remove(filepath.Join(src, handoff.TestingPlan)))
		}, fs.ErrNotExist, "testing-plan.md"},
		{"directory in place of a file", func(t *testing.T, src string) {
			handofftest.WriteFiles(t, src, files)
			require.NoError(t, os.Remove(filepath.Join(src, handoff.DesignDoc)))
			require.NoError(t, os.Mkdir(filepath.Join(src, handoff.DesignDoc), 0o755))
		}, nil, "not a regular file"},
		{"symlink leaving the directory", func(t *testing.T, src string) {
			handofftest.WriteFiles(t, src, files)
			outside := filepath.Join(t.TempDir(), "secret.md")
			require.NoError(t, os.WriteFile(outside, []byte(files[handoff.DesignDoc]), 0o644))
			require.NoError(t, os.Remove(filepath.Join(src, handoff.DesignDoc)))
			require.NoError(t, os.Symlink(outside, filepath.Join(src, handoff.DesignDoc)))
		}, nil, "path escapes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			tc.setup(t, src)
			dst := filepath.Join(t.TempDir(), "specs", "42")
			written, err := handoff.Materialize(dst, rec, handoff.DirSource(src))
			require.Error(t, err)
			assert.Nil(t, written)
			var ve *handoff.VerifyError
			require.ErrorAs(t, err, &ve)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			assert.Contains(t, err.Error(), tc.msg)
			assert.Contains(t, err.Error(), "nothing written")
			assert.Empty(t, dirNames(t, dst), "nothing may be written when a file fails")
		})
	}
}

func TestMaterializePrefixStopsAtFirstFailure(t *testing.T) {
	rec, files := designRecord()
	src := t.TempDir()
	handofftest.WriteFiles(t, src, handofftest.Tampered(files, handoff.DesignDoc))
	dst := t.TempDir()
	written, failed, err := handoff.MaterializePrefix(dst, rec, handoff.DirSource(src))
	require.NoError(t, err)
	assert.Equal(t, []string{handoff.Brainstorm, handoff.Requirements}, written)
	require.Len(t, failed, 1)
	assert.Equal(t, handoff.DesignDoc, failed[0].Name)
	assert.ErrorIs(t, failed[0].Err, handoff.ErrHashMismatch)
	assert.Equal(t, []string{"brainstorm.md", "requirements.md"}, dirNames(t, dst), "testing-plan.md verified but follows the failure")
}

func TestMaterializeRefusesInvalidRecord(t *testing.T) {
	rec, files := designRecord()
	src := t.TempDir()
	handofftest.WriteFiles(t, src, files)
	rec.Artifacts[0].Name = "../../outside.md"
	dst := t.TempDir()
	_, err := handoff.Materialize(dst, rec, handoff.DirSource(src))
	require.Error(t, err)
	assert.Equal(t, handoff.CodeUnknownArtifact, handoff.CodeOf(err))
	assert.Empty(t, dirNames(t, dst))
}

func TestMaterializeFromTicketBodies(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByTicket})
	bodies, err := handoff.Render(rec)
	require.NoError(t, err)
	parsed, err := handoff.ParseComments(bodies[0], bodies[1:])
	require.NoError(t, err)
	dst := t.TempDir()
	written, err := handoff.Materialize(dst, parsed, handoff.TicketSource(parsed.Files))
	require.NoError(t, err)
	assert.Equal(t, []string{handoff.Brainstorm, handoff.Requirements}, written)
	got, err := os.ReadFile(filepath.Join(dst, handoff.Requirements))
	require.NoError(t, err)
	assert.Equal(t, files[handoff.Requirements], string(got))
}

func TestMaterializeFromSpecArtifact(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByArtifact})
	files[handoff.DesignDoc] += "Embedded </script> and <b>tags</b> survive.\n"
	rec.Artifacts[2].SHA256 = handoff.HashLF([]byte(files[handoff.DesignDoc]))
	page := filepath.Join(t.TempDir(), "artifact.html")
	require.NoError(t, os.WriteFile(page, handofftest.SpecArtifactHTML(files), 0o644))
	src, err := handoff.SpecArtifactSource(page)
	require.NoError(t, err)
	dst := t.TempDir()
	written, err := handoff.Materialize(dst, rec, src)
	require.NoError(t, err)
	assert.Len(t, written, 4)
	got, err := os.ReadFile(filepath.Join(dst, handoff.DesignDoc))
	require.NoError(t, err)
	assert.Equal(t, files[handoff.DesignDoc], string(got))
}

func TestSpecFilesFromHTML(t *testing.T) {
	cases := []struct {
		name string
		html string
		want map[string]string
		err  string
	}{
		{"array form", `<script type="application/json" id="the-loop-spec-files">[{"name":"design.md","md":"# D\n"}]</script>`, map[string]string{"design.md": "# D\n"}, ""},
		{"object form, attributes reordered", `<p>x</p><SCRIPT id='the-loop-spec-files' type="Application/JSON">{"design.md":"# D\n","brainstorm.md":"# B\n"}</SCRIPT>`, map[string]string{"design.md": "# D\n", "brainstorm.md": "# B\n"}, ""},
		{"escaped close tag", `<script type="application/json" id="the-loop-spec-files">{"design.md":"a <\/script> b"}</script>`, map[string]string{"design.md": "a </script> b"}, ""},
		{"other scripts ignored", `<script>var x = 1;</script><script type="application/json" data-id="the-loop-spec-files">{}</script><script type="application/json" id="the-loop-spec-files">{"design.md":"x"}</script>`, map[string]string{"design.md": "x"}, ""},
		{"no element", `<html><body>hello</body></html>`, nil, "no <script"},
		{"two elements", `<script type="application/json" id="the-loop-spec-files">{}</script><script type="application/json" id="the-loop-spec-files">{}</script>`, nil, "2 elements"},
		{"wrong type", `<script type="text/javascript" id="the-loop-spec-files">{}</script>`, nil, "application/json"},
		{"never closed", `<script type="application/json" id="the-loop-spec-files">{"design.md":"x"}`, nil, "never closed"},
		{"duplicate in array", `<script type="application/json" id="the-loop-spec-files">[{"name":"design.md","md":"a"},{"name":"design.md","md":"b"}]</script>`, nil, "twice"},
		{"duplicate in object", `<script type="application/json" id="the-loop-spec-files">{"design.md":"a","design.md":"b"}</script>`, nil, "twice"},
		{"array item without md", `<script type="application/json" id="the-loop-spec-files">[{"name":"design.md"}]</script>`, nil, "lacks name or md"},
		{"not JSON", `<script type="application/json" id="the-loop-spec-files">design.md: x</script>`, nil, "neither"},
		{"trailing data", `<script type="application/json" id="the-loop-spec-files">{"design.md":"x"} {}</script>`, nil, "trailing"},
		{"non-string body", `<script type="application/json" id="the-loop-spec-files">{"design.md":42}</script>`, nil, "not a JSON string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := handoff.SpecFilesFromHTML([]byte(tc.html))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
