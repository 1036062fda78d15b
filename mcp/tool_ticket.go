package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/integrations/tickets"
	"github.com/the-loop/the-loop/internal/lazyre"
	"github.com/the-loop/the-loop/service"
)

// Argument names of ticket_create (camelCase, as the JSON of
// tickets.CreateOptions).
const (
	argSystem    = "system"
	argProject   = "project"
	argTitle     = "title"
	argBody      = "body"
	argLabels    = "labels"
	argIssueType = "issueType"
	argParent    = "parent"
	argMirrorOf  = "mirrorOf"
)

var ticketCreateTool = Tool{
	Def: NewToolDef("ticket_create", Annotations{Title: "Create a ticket", OpenWorld: true},
		mcp.WithDescription("Create a GitHub issue or a Jira issue with the server's own credentials and return its key and URL. "+
			"The same core as `the-loop ticket create --format json`. Every argument is checked before any request is sent: "+
			"a GitHub issue takes repo (OWNER/REPO); a Jira issue takes project (one of the keys ticket_projects lists) and optionally issueType, parent and mirrorOf. "+
			"Each call creates a new ticket, so do not retry a call that succeeded."),
		mcp.WithString(argSystem, mcp.Required(), mcp.Enum("github", "jira"), mcp.Description("Ticket system: github or jira.")),
		mcp.WithString(argRepo, mcp.Description("GitHub repository as OWNER/REPO (system github only).")),
		mcp.WithString(argProject, mcp.Description("Jira project key from integrations.jira.projects, e.g. PROJ (system jira only); ticket_projects lists them.")),
		mcp.WithString(argTitle, mcp.Required(), mcp.Description("Ticket title (the Jira summary).")),
		mcp.WithString(argBody, mcp.Required(), mcp.Description("Ticket body in markdown (the Jira description); may be empty.")),
		stringList(argLabels, "Labels to set, e.g. [\"bug\", \"triage\"]."),
		mcp.WithString(argIssueType, mcp.Description("Jira issue type, e.g. Story, Task, Bug or Epic (system jira only; default Task).")),
		mcp.WithString(argParent, mcp.Description("Jira parent (epic) key, e.g. PROJ-1 (system jira only).")),
		mcp.WithString(argMirrorOf, mcp.Description("GitHub issue URL this Jira issue mirrors (system jira only): the issue gets the mirror label, "+
			"its description opens with the URL, and the GitHub issue body is edited to name the new key.")),
	),
	MayBeEmpty: []string{argBody},
	Handler: handle(func(ctx context.Context, deps Deps, in service.TicketCreateRequest) *mcp.CallToolResult {
		created, err := deps.Backend.TicketCreate(ctx, in)
		var mle *tickets.MirrorLinkError
		switch {
		case errors.As(err, &mle):
			res := result(created, fmt.Sprintf("created %s (%s), but the GitHub issue could not be edited to name it: %s. "+
				"The ticket exists: do not create it again; add the key to the GitHub issue by hand.", created.Key, created.URL, argNames(mle.Err.Error())), created.Warnings)
			res.IsError = true
			return res
		case err != nil:
			return ticketError(err)
		}
		return result(created, fmt.Sprintf("created %s %s", created.Key, created.URL), created.Warnings)
	}),
}

var ticketProjectsTool = Tool{
	Def: NewToolDef("ticket_projects", Annotations{Title: "List the Jira projects", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("The Jira project keys tickets may be created in (integrations.jira.projects in the server's config), as {\"projects\": [...]}. "+
			"The same list as `the-loop ticket projects --format json`. Read-only; sends no request."),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.TicketProjectsRequest) *mcp.CallToolResult {
		res, err := deps.Backend.TicketProjects(ctx, in)
		if err != nil {
			return coreError("ticket_projects", err)
		}
		text := "configured Jira projects: " + strings.Join(res.Projects, ", ")
		if len(res.Projects) == 0 {
			text = "no Jira projects are configured; the operator adds keys to integrations.jira.projects"
		}
		return result(res, text, res.Warnings)
	}),
}

// ticketError turns a refused option or a provider failure into a tool
// error that names the argument to fix.
func ticketError(err error) *mcp.CallToolResult {
	var oe *tickets.OptionError
	if errors.As(err, &oe) {
		return mcp.NewToolResultError(fmt.Sprintf("ticket_create: argument %q: %s. Fix the arguments and call again; nothing was created.",
			flagArg(oe.Flag), argNames(oe.Msg)))
	}
	if errors.Is(err, service.ErrNoIntegration) {
		return mcp.NewToolResultError("ticket_create failed: " + err.Error() + "; the operator configures integrations in the server's config. Nothing was created.")
	}
	return mcp.NewToolResultError("ticket_create failed: " + argNames(err.Error()) + ". Nothing was created.")
}

// flagPattern matches the CLI flags of `the-loop ticket create`.
var flagPattern = lazyre.New(`--(system|repo|project|title|body|labels|issue-type|parent|mirror-of)\b`)

// flagArg maps a CLI flag ("--issue-type") to the tool argument
// ("issueType").
func flagArg(flag string) string {
	parts := strings.Split(strings.TrimPrefix(flag, "--"), "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// argNames rewrites the CLI flags a core message names into the tool's
// argument names, so the model reads the names it can pass.
func argNames(msg string) string {
	return flagPattern().ReplaceAllStringFunc(msg, flagArg)
}
