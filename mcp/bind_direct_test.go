package mcp

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/service"
)

// upperText takes a string through encoding.TextUnmarshaler.
type upperText string

func (u *upperText) UnmarshalText(b []byte) error {
	*u = upperText(strings.ToUpper(string(b)))
	return nil
}

// nullSeer decodes itself, and says so even for JSON null.
type nullSeer string

func (n *nullSeer) UnmarshalJSON(b []byte) error {
	*n = nullSeer("decoded " + string(b))
	return nil
}

// Request shapes a plan must get right or refuse: a field named by its
// Go name, an option that quotes a value, a custom decoder, an unexported
// field, promoted fields, an embedded pointer, a number.
type (
	untagged struct {
		Name string
		Flag bool `json:",omitempty"`
	}
	quoted struct {
		On   bool   `json:"on,string"`
		Text string `json:"text"`
	}
	custom struct {
		Name upperText `json:"name"`
		Seen nullSeer  `json:"seen"`
		Kept string    `json:"kept"`
	}
	hidden struct {
		//lint:ignore U1000 never set: encoding/json skips an unexported field, and so must the plan
		secret string
		Shown  string `json:"secret"`
	}
	inner struct {
		Name string `json:"name"`
		Text string
		Deep string `json:"kept"`
		//lint:ignore U1000 never set: an unexported field of an embedded struct is not promoted
		on bool
	}
	other struct {
		Text string
		Flag bool `json:"flag"`
	}
	// layered promotes inner's and other's fields: name from inner, kept
	// from itself (shallower), flag from other, Text from neither (two at
	// one depth, neither tagged).
	layered struct {
		inner
		other
		Kept string `json:"kept"`
	}
	pointed struct {
		*inner
		Title string `json:"title"`
	}
	numbered struct {
		N    int    `json:"n"`
		Name string `json:"name"`
	}
)

// decodeBoth decodes args into R directly, when the plan takes them, and
// through encoding/json: the same value and the same refusal, or the
// direct decoder stood aside.
func decodeBoth[R any](t *testing.T, args map[string]any) (direct bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "tool"
	req.Params.Arguments = args
	want, wantBad := decodeJSON[R](req, args)
	got, ok := decodeDirect[R](args)
	if !ok {
		return false
	}
	require.Nil(t, wantBad, "encoding/json refused %v, which the direct decoder took", args)
	require.Equal(t, want, got, "arguments %#v", args)
	gotVia, bad := decode[R](req)
	require.Nil(t, bad)
	require.Equal(t, want, gotVia)
	return true
}

// The direct decoder gives what encoding/json gives for every argument set
// it takes, and takes the common ones: random sets of names (each type's
// own, other cases of them, unknown ones) and values (strings, booleans,
// null, numbers, lists, objects) over every request shape.
func TestDirectDecodeAgreesWithEncodingJSON(t *testing.T) {
	names := []string{"repo", "workItem", "workitem", "WORKITEM", "all", "recompute", "Name", "name", "Flag",
		"on", "text", "Text", "kept", "secret", "flag", "seen", "n", "title", "body", "labels", "goal", "before", "pageSize", "unknown", ""}
	values := []any{"", "issue-2", " spaced ", "déjà", true, false, nil, float64(3), []any{"a", " b ", ""}, map[string]any{"x": 1}}
	rng := rand.New(rand.NewPCG(1, 2))
	decoders := map[string]func(map[string]any) bool{
		"CheckRequest":            func(a map[string]any) bool { return decodeBoth[service.CheckRequest](t, a) },
		"ItemRequest":             func(a map[string]any) bool { return decodeBoth[service.ItemRequest](t, a) },
		"CompleteRequest":         func(a map[string]any) bool { return decodeBoth[service.CompleteRequest](t, a) },
		"TicketCreateRequest":     func(a map[string]any) bool { return decodeBoth[service.TicketCreateRequest](t, a) },
		"ContinuityUpdateRequest": func(a map[string]any) bool { return decodeBoth[service.ContinuityUpdateRequest](t, a) },
		"PlanRequest":             func(a map[string]any) bool { return decodeBoth[service.PlanRequest](t, a) },
		"untagged":                func(a map[string]any) bool { return decodeBoth[untagged](t, a) },
		"quoted":                  func(a map[string]any) bool { return decodeBoth[quoted](t, a) },
		"custom":                  func(a map[string]any) bool { return decodeBoth[custom](t, a) },
		"hidden":                  func(a map[string]any) bool { return decodeBoth[hidden](t, a) },
		"numbered":                func(a map[string]any) bool { return decodeBoth[numbered](t, a) },
		"layered":                 func(a map[string]any) bool { return decodeBoth[layered](t, a) },
		"pointed":                 func(a map[string]any) bool { return decodeBoth[pointed](t, a) },
	}
	taken := map[string]int{}
	for range 4000 {
		args := map[string]any{}
		for range rng.IntN(4) {
			args[names[rng.IntN(len(names))]] = values[rng.IntN(len(values))]
		}
		for name, dec := range decoders {
			if dec(args) {
				taken[name]++
			}
		}
	}
	// The common calls take the direct path; the shapes it must not decode
	// never do.
	for _, name := range []string{"CheckRequest", "CompleteRequest", "TicketCreateRequest", "untagged", "quoted", "custom", "numbered", "hidden", "layered"} {
		assert.Positive(t, taken[name], "%s: some argument sets decode directly", name)
	}
	assert.NotContains(t, planFor(reflect.TypeFor[layered]()), "Text", "two fields of one name at one depth: none")
	assert.Positive(t, taken["ContinuityUpdateRequest"], "embedded fields are promoted")
	assert.Zero(t, taken["pointed"], "an embedded pointer: encoding/json's business")
	_, ok := decodeDirect[service.CheckRequest](map[string]any{"workItem": "issue-2", "all": false, "repo": nil})
	assert.True(t, ok, "check's arguments decode directly")
	assert.Nil(t, planFor(reflect.TypeFor[[]string]()), "only a struct has a plan")
}

// FuzzDirectDecodeMatchesEncodingJSON: for any JSON object of arguments,
// the direct decoder either stands aside or gives what encoding/json gives,
// for check's request and for a request of promoted fields.
func FuzzDirectDecodeMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{`{"workItem":"issue-2"}`, `{"workItem":"issue-2","all":false,"repo":null}`, `{"all":"yes"}`,
		`{"WORKITEM":"x"}`, `{"recompute":true,"repo":"/r"}`, `{"name":"n","kept":"k","flag":true,"Text":"t"}`, `{"n":1}`, `{}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var args map[string]any
		if json.Unmarshal([]byte(raw), &args) != nil || args == nil {
			return
		}
		decodeBoth[service.CheckRequest](t, args)
		decodeBoth[layered](t, args)
		decodeBoth[custom](t, args)
	})
}
