package handoff_test

import (
	"strings"
	"testing"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
)

// FuzzParse checks that Parse never panics, rejects only with a coded
// *Error, and that whatever it accepts is valid and survives a render and
// parse round trip unchanged. Seeds live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, row := range handofftest.Rows() {
		for _, carrier := range []string{handoff.CarriedByBranch, handoff.CarriedByTicket, handoff.CarriedByArtifact} {
			s := row.Spec
			s.CarriedBy = carrier
			rec, _ := handofftest.Build(s)
			out, err := handoff.RenderWithLimit(rec, 700)
			if err != nil {
				f.Fatalf("seed render: %v", err)
			}
			f.Add(strings.Join(out, "\n"))
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		rec, err := handoff.Parse(body)
		if err != nil {
			if handoff.CodeOf(err) == "" {
				t.Fatalf("rejection without a code: %v", err)
			}
			return
		}
		if err := handoff.Validate(rec); err != nil {
			t.Fatalf("Parse accepted a record Validate rejects: %v", err)
		}
		out, err := handoff.Render(rec)
		if err != nil {
			// Parse leaves body hashes to import; Render insists on them.
			if handoff.CodeOf(err) == handoff.CodeFileMismatch {
				return
			}
			t.Fatalf("Parse accepted a record Render refuses: %v", err)
		}
		again, err := handoff.ParseComments(out[0], out[1:])
		if err != nil {
			t.Fatalf("rendered record does not parse: %v", err)
		}
		if !equalRecords(rec, again) {
			t.Fatalf("round trip changed the record:\n%#v\n%#v", rec, again)
		}
	})
}

func equalRecords(a, b handoff.Record) bool {
	ja, err1 := handoff.EncodeJSON(a)
	jb, err2 := handoff.EncodeJSON(b)
	if err1 != nil || err2 != nil || string(ja) != string(jb) || len(a.Files) != len(b.Files) {
		return false
	}
	for k, v := range a.Files {
		if b.Files[k] != v {
			return false
		}
	}
	return true
}
