package mcp

import (
	"context"

	"github.com/the-loop/the-loop/service"
)

// Backend is the core the tools bind to: *service.Service, the same core
// the CLI calls, so a tool and its CLI verb cannot drift. Every call has
// one shape: a request decoded from the tool's arguments in, a result with
// its warnings out.
type Backend interface {
	Check(ctx context.Context, req service.CheckRequest) (service.CheckResult, error)
	Status(ctx context.Context, req service.ItemRequest) (service.GraphStatus, error)
	GraphShow(ctx context.Context, req service.GraphShowRequest) (service.GraphView, error)
	Complete(ctx context.Context, req service.CompleteRequest) (service.CompleteResult, error)
	Plan(ctx context.Context, req service.PlanRequest) (service.PlanResult, error)
	GraphRepos(ctx context.Context, req service.GraphReposRequest) (service.GraphReposResult, error)
	PRCreate(ctx context.Context, req service.PRCreateRequest) (service.PRCreateResult, error)

	CriticList(ctx context.Context, req service.CriticListRequest) (service.CriticListResult, error)
	CriticRun(ctx context.Context, req service.CriticRunRequest) (service.CriticRunResult, error)

	TicketCreate(ctx context.Context, req service.TicketCreateRequest) (service.TicketCreateResult, error)
	TicketProjects(ctx context.Context, req service.TicketProjectsRequest) (service.TicketProjectsResult, error)

	ContinuityUpdate(ctx context.Context, req service.ContinuityUpdateRequest) (service.ContinuityUpdateResult, error)
	ContinuityBrief(ctx context.Context, req service.ContinuityBriefRequest) (service.ContinuityBriefResult, error)
	ContinuityPrompt(ctx context.Context, req service.ContinuityPromptRequest) (service.ContinuityPromptResult, error)
	ContinuityResume(ctx context.Context, req service.ContinuityResumeRequest) (service.ContinuityStartResult, error)
}

// HandoffBackend is the part of the core the handoff tools call. It is kept
// apart from Backend so a backend without handoffs still serves every other
// tool; the handoff tools refuse with a tool error on such a backend.
type HandoffBackend interface {
	HandoffPost(ctx context.Context, req service.HandoffPostRequest) (service.HandoffPostResult, error)
	HandoffShow(ctx context.Context, req service.ItemRequest) (service.HandoffView, error)
	HandoffImport(ctx context.Context, req service.HandoffImportRequest) (service.HandoffImportResult, error)
	HandoffNote(ctx context.Context, req service.HandoffNoteRequest) (service.HandoffNoteResult, error)
}

var (
	_ Backend        = (*service.Service)(nil)
	_ HandoffBackend = (*service.Service)(nil)
)
