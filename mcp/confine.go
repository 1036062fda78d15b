package mcp

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// confinedTools are the tools a server confined to one work item answers:
// the walk of that item (check, graph_status, graph_complete, graph_show),
// its critic rounds (critic_list, and critic_run recorded on that item
// only), its pull requests (pr_create, and graph_repos, which there may only
// add repositories), its handed-off files (handoff_show, handoff_import) and
// the continuity record of its working tree.
var confinedTools = map[string]bool{
	"check": true, "graph_status": true, "graph_complete": true, "graph_show": true, "pr_create": true, "graph_repos": true,
	"critic_list": true, "critic_run": true,
	"handoff_show": true, "handoff_import": true,
	"continuity_update": true, "continuity_brief": true, "continuity_prompt": true,
}

// confine wraps a handler for a server confined to deps.WorkItem: a tool
// outside confinedTools is refused (handoff_post and ticket_create say why:
// they need the developer present), a workItem other than the confined one
// is refused (an absent one means the confined one), `all` is refused, and
// a repo other than the server's own working tree is refused.
func confine(def mcp.Tool, deps Deps, next server.ToolHandlerFunc) server.ToolHandlerFunc {
	name := def.Name
	_, takesItem := def.InputSchema.Properties[ArgWorkItem]
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch {
		case name == "handoff_post" || name == "ticket_create":
			return mcp.NewToolResultError(fmt.Sprintf("%s is refused: this server belongs to a session the loop launched for work item %s (the-loop serve --work-item), and %s needs the developer present. Nothing was done; ask the developer to run it from their own session.",
				name, deps.WorkItem, map[string]string{"handoff_post": "a handoff", "ticket_create": "a new ticket"}[name])), nil
		case !confinedTools[name]:
			return mcp.NewToolResultError(fmt.Sprintf("%s is not available here: this server is confined to work item %s (the-loop serve --work-item). Nothing was done.", name, deps.WorkItem)), nil
		}
		args, _ := req.Params.Arguments.(map[string]any)
		if args == nil {
			args = map[string]any{}
			req.Params.Arguments = args
		}
		if all, _ := args["all"].(bool); all {
			return confinedRefusal(name, deps, "it answers for no other work item, so `all` is refused"), nil
		}
		if takesItem {
			v, present := args[ArgWorkItem]
			switch {
			case !present:
				args[ArgWorkItem] = deps.WorkItem
			case v != deps.WorkItem:
				return confinedRefusal(name, deps, fmt.Sprintf("it answers for %s only, never %v", deps.WorkItem, v)), nil
			}
		}
		if repo, ok := args[argRepo].(string); ok && repo != "" && !sameDir(repo, deps.DefaultRepo) {
			return confinedRefusal(name, deps, "it serves its own working tree only; leave `repo` out"), nil
		}
		return next(ctx, req)
	}
}

func confinedRefusal(tool string, deps Deps, why string) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf("%s is refused: this server is confined to work item %s (the-loop serve --work-item): %s. Nothing was done.", tool, deps.WorkItem, why))
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
