package mcp

import (
	"context"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

// Backend is the core the tools bind to: *service.Service, the same core
// the CLI calls, so a tool and its CLI verb cannot drift.
type Backend interface {
	Check(ctx context.Context, req service.CheckRequest) (service.CheckResult, error)
	Status(ctx context.Context, req service.ItemRequest) (service.GraphStatus, []string, error)
	Complete(ctx context.Context, req service.CompleteRequest) (runtime.Envelope, []string, error)
}

var _ Backend = (*service.Service)(nil)
