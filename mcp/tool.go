package mcp

import (
	"fmt"
	"log/slog"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// Deps are the dependencies a tool handler is built from. Handlers read them
// once, when NewServer builds the server.
type Deps struct {
	// Logger receives one line per tool call (never argument bodies).
	// Nil discards.
	Logger *slog.Logger
	// DefaultRepo is the repository checkout tools act on when a call names
	// none (the --repo flag of `the-loop serve`).
	DefaultRepo string
	// Backend is the core service.
	Backend Backend
	// Operator is routing.operator: the person a stdio or static-token
	// caller acts as (Principal.Person).
	Operator string
	// WorkItem, when set, confines the server to one work item (`the-loop
	// serve --work-item`, the server of a session the loop launched): see
	// confine.
	WorkItem string
	// Node, PR and PRRepo narrow a confined server to the node a session
	// was launched for (of that pull request's loop when PR > 0): its
	// claims are of that node only. "" leaves claims to any node.
	Node   string
	PR     int
	PRRepo string
	// MaxArgumentBytes caps each argument of a call (mcp.maxArgumentBytes;
	// 0: DefaultMaxArgumentBytes): a longer one is refused, naming the
	// argument and the limit, before anything reads it.
	MaxArgumentBytes int
}

// Tool is one MCP tool: a static definition plus a handler built from Deps.
type Tool struct {
	// Def is the definition listed by tools/list; build it with NewToolDef
	// so every annotation is set on purpose.
	Def mcp.Tool
	// Handler builds the call handler from the dependencies.
	Handler func(deps Deps) server.ToolHandlerFunc
	// MayBeEmpty names the required string arguments that may be "" (a
	// ticket's body); every other required string must say something.
	MayBeEmpty []string
}

// Annotations are the behaviour hints every tool must state. They are a
// required argument of NewToolDef because mcp.NewTool silently defaults a
// tool to destructive and open-world.
type Annotations struct {
	// Title is the human-readable name shown by clients.
	Title string
	// ReadOnly: the tool does not change its environment.
	ReadOnly bool
	// Destructive: the tool may delete or overwrite state (meaningful only
	// when not ReadOnly).
	Destructive bool
	// Idempotent: repeating a call with the same arguments has no further
	// effect.
	Idempotent bool
	// OpenWorld: the tool reaches systems outside the repository (GitHub,
	// Jira, Slack).
	OpenWorld bool
}

// NewToolDef builds a tool definition with every annotation set from a and
// additionalProperties false, then applies opts (mcp.WithDescription,
// mcp.WithString, ...).
func NewToolDef(name string, a Annotations, opts ...mcp.ToolOption) mcp.Tool {
	base := []mcp.ToolOption{
		mcp.WithToolTitle(a.Title),
		mcp.WithTitleAnnotation(a.Title),
		mcp.WithReadOnlyHintAnnotation(a.ReadOnly),
		mcp.WithDestructiveHintAnnotation(a.Destructive),
		mcp.WithIdempotentHintAnnotation(a.Idempotent),
		mcp.WithOpenWorldHintAnnotation(a.OpenWorld),
		mcp.WithSchemaAdditionalProperties(false),
	}
	return mcp.NewTool(name, append(base, opts...)...)
}

var toolName = lazyre.New(`^[a-z][a-z0-9_]{0,47}$`)

// ValidateTool reports the first way t breaks the house rules: a snake_case
// name that is not forbidden, a title and description, all four annotations
// set, additionalProperties false, and a type and description on every
// argument.
func ValidateTool(t Tool) error {
	d := t.Def
	if !toolName().MatchString(d.Name) {
		return fmt.Errorf("tool %q: name must be snake_case, start with a letter, at most 48 characters", d.Name)
	}
	if err := CheckToolName(d.Name); err != nil {
		return err
	}
	if t.Handler == nil {
		return fmt.Errorf("tool %q: Handler is nil", d.Name)
	}
	if d.Description == "" || d.Title == "" {
		return fmt.Errorf("tool %q: set a title and a description (build it with NewToolDef and mcp.WithDescription)", d.Name)
	}
	a := d.Annotations
	if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
		return fmt.Errorf("tool %q: every annotation hint must be set (build it with NewToolDef)", d.Name)
	}
	if *a.ReadOnlyHint && *a.DestructiveHint {
		return fmt.Errorf("tool %q: a read-only tool cannot be destructive", d.Name)
	}
	if d.RawInputSchema != nil {
		return fmt.Errorf("tool %q: use the structured input schema, not a raw one, so arguments can be checked", d.Name)
	}
	if ap, ok := d.InputSchema.AdditionalProperties.(bool); !ok || ap {
		return fmt.Errorf("tool %q: the input schema must set additionalProperties false", d.Name)
	}
	for _, name := range sortedKeys(d.InputSchema.Properties) {
		prop, _ := d.InputSchema.Properties[name].(map[string]any)
		if err := CheckArgumentName(name); err != nil {
			return fmt.Errorf("tool %q: %w", d.Name, err)
		}
		if s, _ := prop["type"].(string); s == "" {
			return fmt.Errorf("tool %q: argument %q has no type", d.Name, name)
		}
		if s, _ := prop["description"].(string); s == "" {
			return fmt.Errorf("tool %q: argument %q has no description (add mcp.Description)", d.Name, name)
		}
	}
	for _, name := range d.InputSchema.Required {
		if _, ok := d.InputSchema.Properties[name]; !ok {
			return fmt.Errorf("tool %q: required argument %q is not a property", d.Name, name)
		}
	}
	for _, name := range t.MayBeEmpty {
		prop, _ := d.InputSchema.Properties[name].(map[string]any)
		if kind, _ := prop["type"].(string); kind != "string" || !contains(d.InputSchema.Required, name) {
			return fmt.Errorf("tool %q: MayBeEmpty names %q, which is not a required string argument", d.Name, name)
		}
	}
	return nil
}

// AllTools returns the shipped tools sorted by name; `the-loop serve`
// serves exactly these. It is the one list of tools: a new tool is a static
// value in its file and a line here. NewServer refuses an invalid tool or
// a name given twice, and the tests run it over this list.
func AllTools() []Tool {
	tools := []Tool{
		checkTool, planTool,
		criticListTool, criticRunTool,
		graphStatusTool, graphShowTool, graphCompleteTool, graphReposTool, prCreateTool,
		handoffPostTool, handoffShowTool, handoffImportTool, handoffNoteTool,
		ticketCreateTool, ticketProjectsTool,
		continuityUpdateTool, continuityBriefTool, continuityPromptTool, continuityResumeTool,
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Def.Name < tools[j].Def.Name })
	return tools
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
