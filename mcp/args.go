package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// ArgWorkItem is the argument name tools use for the work item id (its
// spec folder name: issue-12, PROJ-12); the call log records it.
const ArgWorkItem = "workItem"

// workItemDescription describes ArgWorkItem to the model in every tool: an
// id is the name of its spec folder (the rule of internal/itemid).
const workItemDescription = "Work item id: the name of its spec folder, such as issue-12 (GitHub issue #12) or PROJ-12 (a Jira key); a ticket reference such as OWNER/REPO#12 is not an id. The check tool with all: true lists them."

// argumentsOf returns the call's arguments as an object. Absent or null
// arguments are an empty object; any other non-object is an error result.
func argumentsOf(req mcp.CallToolRequest) (map[string]any, *mcp.CallToolResult) {
	switch a := req.Params.Arguments.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return a, nil
	default:
		return nil, mcp.NewToolResultError(fmt.Sprintf("arguments must be a JSON object of named arguments, got %s", jsonKind(a)))
	}
}

// checkArguments validates a call against the tool's input schema: unknown
// names, missing required arguments, wrong types and values outside an enum
// each produce one sentence naming the argument. It returns nil when the
// arguments are acceptable.
func checkArguments(def mcp.Tool, req mcp.CallToolRequest) *mcp.CallToolResult {
	args, bad := argumentsOf(req)
	if bad != nil {
		return bad
	}
	props := def.InputSchema.Properties
	var problems []string
	for _, name := range sortedKeys(args) {
		schema, ok := props[name].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("unknown argument %q; %s", name, acceptedList(props)))
			continue
		}
		if args[name] == nil {
			if isRequired(def, name) {
				problems = append(problems, fmt.Sprintf("argument %q is null; give %s", name, describe(schema)))
			}
			continue
		}
		if p := checkValue(name, schema, args[name]); p != "" {
			problems = append(problems, p)
		}
	}
	for _, name := range def.InputSchema.Required {
		if _, ok := args[name]; !ok {
			schema, _ := props[name].(map[string]any)
			problems = append(problems, fmt.Sprintf("missing required argument %q (%s)", name, describe(schema)))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return mcp.NewToolResultError(fmt.Sprintf("%s: %s. Fix the arguments and call again.", def.Name, strings.Join(problems, "; ")))
}

// checkBlank refuses a required string argument that is empty or only
// white space, unless the tool allows it (Tool.MayBeEmpty).
func checkBlank(t Tool, req mcp.CallToolRequest) *mcp.CallToolResult {
	args, _ := argumentsOf(req)
	for _, name := range t.Def.InputSchema.Required {
		if s, ok := args[name].(string); ok && strings.TrimSpace(s) == "" && !contains(t.MayBeEmpty, name) {
			return argError(req, "argument %q is empty; give a value", name)
		}
	}
	return nil
}

// checkValue checks one argument value against its property schema and
// returns a problem sentence, or "" when it fits.
func checkValue(name string, schema map[string]any, v any) string {
	want, _ := schema["type"].(string)
	switch want {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("argument %q must be a string, got %s", name, jsonKind(v))
		}
		if enum := enumOf(schema); len(enum) > 0 && !contains(enum, s) {
			return fmt.Sprintf("argument %q must be one of %s, got %q", name, strings.Join(enum, ", "), s)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("argument %q must be true or false, got %s", name, jsonKind(v))
		}
	case "integer":
		f, ok := asNumber(v)
		if !ok || f != math.Trunc(f) {
			return fmt.Sprintf("argument %q must be a whole number, got %s", name, jsonKind(v))
		}
		if lo, ok := asNumber(schema["minimum"]); ok && f < lo {
			return fmt.Sprintf("argument %q must be at least %v, got %v", name, lo, f)
		}
		if hi, ok := asNumber(schema["maximum"]); ok && f > hi {
			return fmt.Sprintf("argument %q must be at most %v, got %v", name, hi, f)
		}
	case "number":
		if _, ok := asNumber(v); !ok {
			return fmt.Sprintf("argument %q must be a number, got %s", name, jsonKind(v))
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("argument %q must be a list, got %s", name, jsonKind(v))
		}
		if itemSchema, ok := schema["items"].(map[string]any); ok {
			for i, item := range items {
				if p := checkValue(fmt.Sprintf("%s[%d]", name, i), itemSchema, item); p != "" {
					return p
				}
			}
		}
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return fmt.Sprintf("argument %q must be an object, got %s", name, jsonKind(v))
		}
	}
	return ""
}

// RequiredString returns the named string argument. A missing, empty or
// non-string value yields an error result naming the argument; return it
// with a nil error.
func RequiredString(req mcp.CallToolRequest, name string) (string, *mcp.CallToolResult) {
	v, present, bad := lookup(req, name)
	if bad != nil {
		return "", bad
	}
	if !present {
		return "", argError(req, "missing required argument %q", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", argError(req, "argument %q must be a string, got %s", name, jsonKind(v))
	}
	if strings.TrimSpace(s) == "" {
		return "", argError(req, "argument %q is empty; give a value", name)
	}
	return s, nil
}

// OptionalString returns the named string argument, or def when absent or
// null. A non-string value yields an error result naming the argument.
func OptionalString(req mcp.CallToolRequest, name, def string) (string, *mcp.CallToolResult) {
	v, present, bad := lookup(req, name)
	if bad != nil || !present {
		return def, bad
	}
	s, ok := v.(string)
	if !ok {
		return def, argError(req, "argument %q must be a string, got %s", name, jsonKind(v))
	}
	return s, nil
}

// RequiredBool returns the named boolean argument, or an error result
// naming it when missing or not a boolean.
func RequiredBool(req mcp.CallToolRequest, name string) (bool, *mcp.CallToolResult) {
	v, present, bad := lookup(req, name)
	if bad != nil {
		return false, bad
	}
	if !present {
		return false, argError(req, "missing required argument %q (true or false)", name)
	}
	b, ok := v.(bool)
	if !ok {
		return false, argError(req, "argument %q must be true or false, got %s", name, jsonKind(v))
	}
	return b, nil
}

// OptionalBool returns the named boolean argument, or def when absent or
// null. A non-boolean value yields an error result naming the argument.
func OptionalBool(req mcp.CallToolRequest, name string, def bool) (bool, *mcp.CallToolResult) {
	v, present, bad := lookup(req, name)
	if bad != nil || !present {
		return def, bad
	}
	b, ok := v.(bool)
	if !ok {
		return def, argError(req, "argument %q must be true or false, got %s", name, jsonKind(v))
	}
	return b, nil
}

// OptionalInt returns the named whole-number argument, or def when absent
// or null. A fractional or non-numeric value yields an error result.
func OptionalInt(req mcp.CallToolRequest, name string, def int) (int, *mcp.CallToolResult) {
	v, present, bad := lookup(req, name)
	if bad != nil || !present {
		return def, bad
	}
	f, ok := asNumber(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return def, argError(req, "argument %q must be a whole number, got %s", name, jsonKind(v))
	}
	return int(f), nil
}

// RejectUnknown returns an error result when the call carries an argument
// not in allowed. Tools registered through NewServer get this check from
// their schema already; it is for handlers called directly.
func RejectUnknown(req mcp.CallToolRequest, allowed ...string) *mcp.CallToolResult {
	args, bad := argumentsOf(req)
	if bad != nil {
		return bad
	}
	set := map[string]any{}
	for _, a := range allowed {
		set[a] = true
	}
	for _, name := range sortedKeys(args) {
		if _, ok := set[name]; !ok {
			return argError(req, "unknown argument %q; %s", name, acceptedList(set))
		}
	}
	return nil
}

func lookup(req mcp.CallToolRequest, name string) (any, bool, *mcp.CallToolResult) {
	args, bad := argumentsOf(req)
	if bad != nil {
		return nil, false, bad
	}
	v, ok := args[name]
	if !ok || v == nil {
		return nil, false, nil
	}
	return v, true, nil
}

func argError(req mcp.CallToolRequest, format string, a ...any) *mcp.CallToolResult {
	msg := fmt.Sprintf(format, a...)
	if req.Params.Name != "" {
		msg = req.Params.Name + ": " + msg
	}
	return mcp.NewToolResultError(msg + ". Fix the arguments and call again.")
}

func isRequired(def mcp.Tool, name string) bool {
	return contains(def.InputSchema.Required, name)
}

func acceptedList(props map[string]any) string {
	if len(props) == 0 {
		return "this tool takes no arguments"
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return "accepted: " + strings.Join(names, ", ")
}

func describe(schema map[string]any) string {
	if schema == nil {
		return "a value"
	}
	kind, _ := schema["type"].(string)
	if enum := enumOf(schema); len(enum) > 0 {
		return "one of " + strings.Join(enum, ", ")
	}
	if d, _ := schema["description"].(string); d != "" {
		return "a " + kind + ": " + strings.TrimSuffix(d, ".")
	}
	return "a " + kind
}

func enumOf(schema map[string]any) []string {
	switch e := schema["enum"].(type) {
	case []string:
		return e
	case []any:
		out := make([]string, 0, len(e))
		for _, v := range e {
			out = append(out, fmt.Sprint(v))
		}
		return out
	}
	return nil
}

// asNumber accepts the numeric shapes an argument can arrive in: float64
// from JSON, json.Number, or Go integers from an in-process caller.
func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func jsonKind(v any) string {
	if f, ok := asNumber(v); ok {
		if f == math.Trunc(f) {
			return "a whole number"
		}
		return "a fractional number"
	}
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
