package mcp

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Most calls name a few strings and booleans for a request struct of
// string and bool fields (check's workItem, repo, all). decodeDirect sets
// those fields from the decoded arguments, by a plan made once per request
// type, instead of encoding the arguments to JSON and decoding them again;
// anything its plan does not cover goes to encoding/json, whose answer it
// always equals (TestDirectDecodeAgreesWithEncodingJSON).

// argPlan maps an argument's exact JSON name to its field; nil when the
// type has no plan (not a struct, a type that decodes itself, an embedded
// pointer): such a type always decodes through encoding/json.
type argPlan map[string]argField

// argField is one field of the plan: its index path (through embedded
// structs) and what it takes directly (reflect.String or reflect.Bool;
// reflect.Invalid: nothing, so a value for it goes to encoding/json).
type argField struct {
	index []int
	takes reflect.Kind
}

var argPlans sync.Map // reflect.Type → argPlan

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planFor is t's plan, made on first use.
func planFor(t reflect.Type) argPlan {
	if p, ok := argPlans.Load(t); ok {
		return p.(argPlan)
	}
	p := makePlan(t)
	argPlans.Store(t, p)
	return p
}

// decodesItself reports whether a *t decodes itself from JSON.
func decodesItself(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

// candidate is a field encoding/json might decode a name into.
type candidate struct {
	argField
	tagged bool
}

// makePlan follows encoding/json's rules for which field a name decodes
// into: an untagged embedded struct's fields are promoted; of the fields
// of one name, the shallowest wins, or among several that deep the one
// tagged; a name still in doubt decodes into nothing (and is left out of
// the plan, so an argument of that name goes to encoding/json).
func makePlan(t reflect.Type) argPlan {
	if t.Kind() != reflect.Struct || decodesItself(t) {
		return nil
	}
	byName := map[string][]candidate{}
	var walk func(t reflect.Type, index []int) bool
	walk = func(t reflect.Type, index []int) bool {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			at := append(index[:len(index):len(index)], i)
			if f.Anonymous && name == "" {
				switch {
				case f.Type.Kind() == reflect.Pointer:
					return false // set only by allocating: encoding/json's business
				case f.Type.Kind() == reflect.Struct:
					if !walk(f.Type, at) {
						return false
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = f.Name
			}
			if !plainName(name) {
				return false
			}
			takes := f.Type.Kind()
			if (takes != reflect.String && takes != reflect.Bool) || decodesItself(f.Type) || strings.Contains(","+opts+",", ",string,") {
				takes = reflect.Invalid
			}
			byName[name] = append(byName[name], candidate{argField{index: at, takes: takes}, tagged})
		}
		return true
	}
	if !walk(t, nil) {
		return nil
	}
	plan := argPlan{}
	for name, cands := range byName {
		if f, ok := dominant(cands); ok {
			plan[name] = f
		}
	}
	return plan
}

// dominant is the field of one name encoding/json decodes into: the
// shallowest, or among several that deep the only tagged one; false when
// there is none.
func dominant(cands []candidate) (argField, bool) {
	depth := len(cands[0].index)
	for _, c := range cands {
		depth = min(depth, len(c.index))
	}
	var at []candidate
	for _, c := range cands {
		if len(c.index) == depth {
			at = append(at, c)
		}
	}
	if len(at) == 1 {
		return at[0].argField, true
	}
	var tagged []candidate
	for _, c := range at {
		if c.tagged {
			tagged = append(tagged, c)
		}
	}
	if len(tagged) == 1 {
		return tagged[0].argField, true
	}
	return argField{}, false
}

// plainName reports whether name is letters, digits and underscores: a
// tag encoding/json takes as written.
func plainName(name string) bool {
	for _, c := range []byte(name) {
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return name != ""
}

// decodeDirect sets R's fields from args by R's plan; false when some
// argument is not in the plan as a string or boolean of its field's kind,
// and the arguments must go through encoding/json.
func decodeDirect[R any](args map[string]any) (R, bool) {
	var r R
	plan := planFor(reflect.TypeFor[R]())
	if plan == nil {
		return r, false
	}
	v := reflect.ValueOf(&r).Elem()
	for name, arg := range args {
		f, ok := plan[name]
		if !ok {
			return r, false
		}
		switch x := arg.(type) {
		case nil: // JSON null leaves a plain field as it is
			if f.takes == reflect.Invalid {
				return r, false
			}
		case string:
			if f.takes != reflect.String {
				return r, false
			}
			v.FieldByIndex(f.index).SetString(x)
		case bool:
			if f.takes != reflect.Bool {
				return r, false
			}
			v.FieldByIndex(f.index).SetBool(x)
		default:
			return r, false
		}
	}
	return r, true
}
