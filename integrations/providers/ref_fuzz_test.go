package providers_test

import (
	"reflect"
	"testing"

	"github.com/the-loop/the-loop/integrations/providers"
)

// FuzzParseRef checks the ticket refs read from people and tickets: what is
// accepted is a complete ref of one system that prints back to a string
// reading the same ticket.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{
		"octo/widgets#12", "github:octo/widgets#12", "github:ghe.example.com/o/r#3",
		"https://github.com/octo/widgets/issues/12", "https://ghe.example.com/o/r/pull/4",
		"jira:PROJ-12", "PROJ-12", "https://example.atlassian.net/browse/PROJ-7",
		"o/r#0", "o/r#1a", "jira:proj-1", "https://x/browse/../PROJ-1", " github:o/r#1 ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := providers.ParseRef(s)
		if err != nil {
			return
		}
		switch ref.System {
		case "github":
			if ref.Owner == "" || ref.Repo == "" || ref.Number <= 0 || ref.Key != "" {
				t.Fatalf("%q read as an incomplete GitHub ref %+v", s, ref)
			}
		case "jira":
			if ref.Key == "" || ref.Owner != "" || ref.Number != 0 {
				t.Fatalf("%q read as an incomplete Jira ref %+v", s, ref)
			}
		default:
			t.Fatalf("%q read as system %q", s, ref.System)
		}
		again, err := providers.ParseRef(ref.String())
		if err != nil || !reflect.DeepEqual(again, ref) {
			t.Fatalf("%q prints as %q, which reads back as %+v (%v)", s, ref.String(), again, err)
		}
	})
}
