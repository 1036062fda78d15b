package runtime_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/runtime"
)

var ticketRefSeeds = []string{
	"github:octo/widgets#12", "github:ghe.example.com/octo/widgets#3", "jira:PROJ-12",
	"github:/#1", "github:o/r#12abc", "github:o/r#0", "github:o/r#-1", "github:o/r/x/y#1",
	"github:../r#1", "github:o/..#1", "jira:", "jira:proj-1", "jira:../../etc", "jira:PROJ-01",
	"github:GitHub.com/o/r#1", "github:o/r#1#2", "gitlab:o/r#1", "github:o r/x#1",
}

// FuzzParseTicketRef checks the ref the engine stores against the grammar
// the providers read: whatever ParseTicketRef accepts, providers.ParseRef
// accepts as the same ticket, and it prints back to a string that parses to
// it again.
func FuzzParseTicketRef(f *testing.F) {
	for _, s := range ticketRefSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := runtime.ParseTicketRef(s)
		if err != nil {
			return
		}
		want, perr := providers.ParseRef(s)
		if perr != nil {
			t.Fatalf("ParseTicketRef accepts %q as %+v, but the providers refuse it: %v", s, ref, perr)
		}
		if !reflect.DeepEqual(ref, want) {
			t.Fatalf("%q: the engine reads %+v, the providers %+v", s, ref, want)
		}
		again, err := runtime.ParseTicketRef(ref.String())
		if err != nil || !reflect.DeepEqual(again, ref) {
			t.Fatalf("%q prints as %q, which reads back as %+v (%v)", s, ref.String(), again, err)
		}
	})
}

func TestTicketRefSeedsAgreeWithTheProviders(t *testing.T) {
	for _, s := range ticketRefSeeds {
		ref, err := runtime.ParseTicketRef(s)
		want, perr := providers.ParseRef(s)
		if err == nil && (perr != nil || !reflect.DeepEqual(ref, want)) {
			t.Errorf("%q: the engine reads %+v, the providers %+v (%v)", s, ref, want, perr)
		}
		if err == nil && !strings.HasPrefix(s, ref.System+":") {
			t.Errorf("%q read as system %q", s, ref.System)
		}
	}
}

// FuzzParseState checks the portable record reader: any input is either
// refused or read into a state that writes back to a record that reads the
// same.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"version": 1, "workItem": "issue-8", "loop": "pdlc-work-item-loop", "currentNode": "design"}`))
	f.Add([]byte(`{"workItem": "issue-1", "nodes": {"design": {"attempts": 2, "outcome": "pass"}}, "decisions": {"design-approval": {"by": "@a"}}}`))
	f.Add([]byte(`{"skips": {"brainstorming": {"reason": "x"}}, "parked": {"node": "a", "reason": "b"}}`))
	f.Add([]byte(`{"version": "one"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := runtime.ParseState(data, "issue-1")
		if err != nil {
			return
		}
		out, err := st.Marshal()
		if err != nil {
			t.Fatalf("a state read from %q cannot be written back: %v", data, err)
		}
		again, err := runtime.ParseState(out, "issue-1")
		if err != nil {
			t.Fatalf("the record written for %q does not read back: %v", data, err)
		}
		back, err := again.Marshal()
		if err != nil || string(back) != string(out) {
			t.Fatalf("the record of %q is not stable:\n%s\n---\n%s", data, out, back)
		}
	})
}
