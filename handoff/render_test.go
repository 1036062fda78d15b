package handoff_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
)

func carriers() []string {
	return []string{handoff.CarriedByBranch, handoff.CarriedByTicket, handoff.CarriedByArtifact}
}

func TestRoundTripEveryRowAndCarrier(t *testing.T) {
	for _, row := range handofftest.Rows() {
		for _, carrier := range carriers() {
			s := row.Spec
			s.CarriedBy = carrier
			t.Run(s.Stage+"/"+row.Enter+"/"+carrier, func(t *testing.T) {
				rec, _ := handofftest.Build(s)
				require.Equal(t, row.Enter, rec.Enter)
				out, err := handoff.Render(rec)
				require.NoError(t, err)
				require.Len(t, out, 1)
				got, err := handoff.Parse(out[0])
				require.NoError(t, err)
				assert.Equal(t, rec, got)
				again, err := handoff.Render(got)
				require.NoError(t, err)
				assert.Equal(t, out, again, "render(parse(x)) must be x")
			})
		}
	}
}

// ticketRecord builds a brainstorm-settled ticket record carrying body.
func ticketRecord(body string) handoff.Record {
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByTicket})
	rec.Files = map[string]string{handoff.Brainstorm: body}
	rec.Artifacts[0].SHA256 = handoff.HashLF([]byte(body))
	return rec
}

func roundTrip(t *testing.T, rec handoff.Record, limit int) []string {
	t.Helper()
	out, err := handoff.RenderWithLimit(rec, limit)
	require.NoError(t, err)
	for i, c := range out {
		assert.LessOrEqual(t, utf8.RuneCountInString(c), limit, "comment %d is over the limit", i)
	}
	got, err := handoff.ParseComments(out[0], out[1:])
	require.NoError(t, err)
	want := rec
	want.Files = map[string]string{}
	for k, v := range rec.Files {
		want.Files[k] = string(handoff.NormalizeLF([]byte(v)))
	}
	assert.Equal(t, want, got)
	return out
}

func TestRoundTripBodiesThatFightTheFence(t *testing.T) {
	cases := map[string]string{
		"fences of every length": "# Design\n\n```go\nfmt.Println(1)\n```\n\n````\nnested ``` fence\n````\n\n`````markdown\n``````\n`````\n",
		"backticks only":         strings.Repeat("`", 40) + "\n" + strings.Repeat("``` ", 50) + "\n```\n",
		"indented closing fence": "text\n   ```\n    ````\n```   \n",
		"no final newline":       "# Title\n\nlast line without newline",
		"empty body":             "",
		"just a newline":         "\n",
		"blank lines at the end": "x\n\n\n",
		"CRLF endings":           "# Title\r\n\r\nbody\r\n",
		"lone CR":                "a\rb\r",
		"looks like markers":     handoff.RecordMarker + "\n" + handoff.PartMarker("0123456789abcdef", 1) + "\n</details>\n<details><summary>design.md</summary>\n",
		"self trailer in body":   "\n🤖 _the-loop, autonomous comment_\n<!-- the-loop:agent-comment -->\n",
		"unicode":                "Résumé — naïve café 日本語 🚀\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			rec := ticketRecord(body)
			out := roundTrip(t, rec, handoff.MaxCommentChars)
			require.Len(t, out, 1)
			longest := 0
			for _, l := range strings.Split(out[0], "\n") {
				if strings.HasSuffix(l, "markdown") || strings.HasSuffix(l, "markdown noeol") {
					longest = strings.Count(l, "`")
					break // the first such line is the opening fence
				}
			}
			run := 0
			for _, seg := range strings.FieldsFunc(body, func(r rune) bool { return r != '`' }) {
				run = max(run, len(seg))
			}
			assert.Greater(t, longest, run, "the fence must be longer than any backtick run in the body")
			assert.GreaterOrEqual(t, longest, 3)
		})
	}
}

func TestSplitAtExactlyTheLimit(t *testing.T) {
	// Measure the record with a short body, then grow the body's last line
	// with multi-byte characters so the comment is exactly MaxCommentChars
	// characters (and far more bytes).
	for _, lines := range []string{"", "first line\nsecond line\n"} {
		name := "single line"
		if lines != "" {
			name = "several lines"
		}
		t.Run(name, func(t *testing.T) {
			base, err := handoff.Render(ticketRecord(lines + "é\n"))
			require.NoError(t, err)
			pad := handoff.MaxCommentChars - utf8.RuneCountInString(base[0])
			require.Positive(t, pad)

			exact := ticketRecord(lines + strings.Repeat("é", 1+pad) + "\n")
			out := roundTrip(t, exact, handoff.MaxCommentChars)
			require.Len(t, out, 1, "a record of exactly %d characters fits one comment", handoff.MaxCommentChars)
			assert.Equal(t, handoff.MaxCommentChars, utf8.RuneCountInString(out[0]))
			assert.Greater(t, len(out[0]), handoff.MaxCommentChars, "the limit counts characters, not bytes")
			assert.False(t, strings.Contains(out[0], "parts:"))

			over := ticketRecord(lines + strings.Repeat("é", 2+pad) + "\n")
			out = roundTrip(t, over, handoff.MaxCommentChars)
			require.Len(t, out, 2, "one character more needs a continuation part")
			assert.True(t, strings.Contains(out[0], "\nparts: 1\n"))
			assert.True(t, strings.HasPrefix(out[1], "<!-- the-loop:handoff-part record="))
			if lines == "" {
				assert.False(t, strings.Contains(out[0], "<details>"), "a line that does not fit moves whole to the part")
				assert.True(t, strings.Contains(out[1], "<summary>brainstorm.md</summary>"))
			} else {
				assert.True(t, strings.Contains(out[0], "<summary>brainstorm.md</summary>"))
				assert.True(t, strings.Contains(out[1], "<summary>brainstorm.md (continued)</summary>"))
			}
		})
	}
}

func TestSplitAtLineBoundaries(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		b.WriteString(strings.Repeat("line ", 10) + strings.Repeat("`", i%7) + "\n")
	}
	rec := ticketRecord(b.String())
	out := roundTrip(t, rec, handoff.MaxCommentChars)
	require.Greater(t, len(out), 2)
	for i, c := range out[1:] {
		assert.True(t, strings.HasPrefix(c, handoff.PartMarker(partID(t, out[1]), i+1)+"\n"))
		assert.False(t, strings.Contains(c, "noeol"), "line-structured bodies split at line breaks")
	}
}

func partID(t *testing.T, part string) string {
	t.Helper()
	const pre = "<!-- the-loop:handoff-part record="
	require.True(t, strings.HasPrefix(part, pre))
	return part[len(pre) : len(pre)+16]
}

func TestSplitInsideAnOverlongLine(t *testing.T) {
	rec := ticketRecord(strings.Repeat("0123456789", 20000)) // one 200,000-character line
	out := roundTrip(t, rec, handoff.MaxCommentChars)
	require.GreaterOrEqual(t, len(out), 4)
	assert.True(t, strings.Contains(out[1], "markdown noeol"))
}

func TestSplitManyFilesAcrossParts(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByTicket})
	for name := range files {
		rec.Files[name] = strings.Repeat(name+" paragraph with `code` and text.\n", 2500)
	}
	for i, a := range rec.Artifacts {
		rec.Artifacts[i].SHA256 = handoff.HashLF([]byte(rec.Files[a.Name]))
	}
	out := roundTrip(t, rec, handoff.MaxCommentChars)
	assert.True(t, strings.Contains(out[0], fmt.Sprintf("\nparts: %d\n", len(out)-1)))
	again, err := handoff.Render(rec)
	require.NoError(t, err)
	assert.Equal(t, out, again, "rendering is deterministic")
}

func TestRenderRefusesWhatParseRejects(t *testing.T) {
	valid := func() handoff.Record {
		rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled})
		return rec
	}
	cases := []struct {
		name   string
		mutate func(*handoff.Record)
		code   handoff.Code
	}{
		{"version 2", func(r *handoff.Record) { r.Version = 2 }, handoff.CodeUnknownVersion},
		{"unknown stage", func(r *handoff.Record) { r.Stage = "shipped" }, handoff.CodeUnknownStage},
		{"enter implementation", func(r *handoff.Record) { r.Enter = "implementation" }, handoff.CodeEnterNotAllowed},
		{"enter mismatch", func(r *handoff.Record) { r.Enter = handoff.NodeBrainstorming }, handoff.CodeEnterMismatch},
		{"path artifact", func(r *handoff.Record) { r.Artifacts[0].Name = "../x.md" }, handoff.CodeUnknownArtifact},
		{"prefixed hash", func(r *handoff.Record) { r.Artifacts[0].SHA256 = "sha256:" + r.Artifacts[0].SHA256 }, handoff.CodeBadHash},
		{"bad branch", func(r *handoff.Record) { r.Branch = "the-loop/x.lock" }, handoff.CodeBadBranch},
		{"furthest approved", func(r *handoff.Record) { r.ApprovedInChat = []string{handoff.Requirements} }, handoff.CodeApprovedFurthest},
		{"multi-line confirmation", func(r *handoff.Record) { r.Confirmation = "yes\nparts: 9" }, handoff.CodeBadValue},
		{"padded source", func(r *handoff.Record) { r.Source = " chat " }, handoff.CodeBadValue},
		{"bodies on a branch record", func(r *handoff.Record) { r.Files = map[string]string{handoff.Brainstorm: "x"} }, handoff.CodeFilesNotCarry},
		{"ticket without bodies", func(r *handoff.Record) { r.CarriedBy, r.Branch, r.PullRequest = handoff.CarriedByTicket, "", 0 }, handoff.CodeMissingFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := valid()
			tc.mutate(&rec)
			_, err := handoff.Render(rec)
			require.Error(t, err)
			assert.Equal(t, tc.code, handoff.CodeOf(err), "error: %v", err)
			assert.Equal(t, handoff.CodeOf(handoff.Validate(rec)), handoff.CodeOf(err), "render and validate agree")
		})
	}
}

func TestRenderRefusesMismatchedBody(t *testing.T) {
	rec := ticketRecord("original\n")
	rec.Files[handoff.Brainstorm] = "tampered\n"
	_, err := handoff.Render(rec)
	require.Error(t, err)
	assert.Equal(t, handoff.CodeFileMismatch, handoff.CodeOf(err))
	assert.Contains(t, err.Error(), "brainstorm.md")
}

func TestRenderRefusesOversizedRecords(t *testing.T) {
	rec := ticketRecord("x\n")
	_, err := handoff.RenderWithLimit(rec, 100)
	require.Error(t, err)
	assert.Equal(t, handoff.CodeTooLarge, handoff.CodeOf(err))
	assert.Contains(t, err.Error(), "key block")

	huge := ticketRecord(strings.Repeat("y\n", 4_000_000)) // ~8M characters: over 100 parts
	_, err = handoff.Render(huge)
	require.Error(t, err)
	assert.Equal(t, handoff.CodeTooLarge, handoff.CodeOf(err))
	assert.Contains(t, err.Error(), "branch")
}
