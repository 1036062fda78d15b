package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

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

// confine wraps a handler for a server confined to deps.WorkItem (NewServer
// lists no other tool than confinedTools): a workItem other than the
// confined one is refused (an absent one means the confined one), `all` is
// refused, a repo other than the server's own working tree is refused, and
// under a session's scope (deps.Node) a claim is of that node only.
func confine(def mcp.Tool, deps Deps, next server.ToolHandlerFunc) server.ToolHandlerFunc {
	name := def.Name
	_, takesItem := def.InputSchema.Properties[ArgWorkItem]
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !confinedTools[name] {
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
		if name == "graph_complete" && deps.Node != "" {
			if why := scopeClaim(args, deps); why != "" {
				return confinedRefusal(name, deps, why), nil
			}
		}
		return next(ctx, req)
	}
}

// scopeClaim holds a session's claim to the node it was launched for, of
// its pull request's loop if any: an absent node or pull request means
// the session's own; another is refused with why.
func scopeClaim(args map[string]any, deps Deps) string {
	work := deps.Node
	if deps.PR > 0 {
		work = fmt.Sprintf("%s of %s#%d", deps.Node, deps.PRRepo, deps.PR)
	}
	if v, ok := args[argNode]; ok && v != deps.Node {
		return fmt.Sprintf("its session was launched for %s and claims that node only, never %v", work, v)
	}
	args[argNode] = deps.Node
	pr := 0
	if v, ok := args[argPR].(float64); ok {
		pr = int(v)
	}
	if pr != 0 && pr != deps.PR {
		return fmt.Sprintf("its session was launched for %s and claims that node only, never one of pull request %d", work, pr)
	}
	if v, ok := args[argPRRepo].(string); ok && v != "" && (deps.PR == 0 || !strings.EqualFold(v, deps.PRRepo)) {
		return fmt.Sprintf("its session was launched for %s and claims that node only, never one of %s", work, v)
	}
	if deps.PR > 0 {
		args[argPR], args[argPRRepo] = float64(deps.PR), deps.PRRepo
	}
	return ""
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
