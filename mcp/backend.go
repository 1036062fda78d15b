package mcp

import (
	"context"

	"github.com/the-loop/the-loop/continuity"
	"github.com/the-loop/the-loop/integrations/tickets"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

// Backend is the core the tools bind to: *service.Service, the same core
// the CLI calls, so a tool and its CLI verb cannot drift.
type Backend interface {
	Check(ctx context.Context, req service.CheckRequest) (service.CheckResult, error)
	Status(ctx context.Context, req service.ItemRequest) (service.GraphStatus, []string, error)
	Complete(ctx context.Context, req service.CompleteRequest) (runtime.Envelope, []string, error)

	TicketCreate(ctx context.Context, opts tickets.CreateOptions) (tickets.Created, error)
	TicketProjects() []string

	ContinuityUpdate(ctx context.Context, repo string, e continuity.Entry) (continuity.UpdateResult, error)
	ContinuityBrief(ctx context.Context, repo string, opts continuity.BriefOptions) (continuity.Brief, error)
	ContinuityPrompt(ctx context.Context, repo string, opts continuity.PromptOptions) (continuity.Prompt, error)
	ContinuityResume(ctx context.Context, repo string) (continuity.StartResult, error)
}

var _ Backend = (*service.Service)(nil)
