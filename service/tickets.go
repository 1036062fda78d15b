package service

import (
	"context"
	"fmt"

	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/tickets"
)

// TicketCreateRequest is one ticket to create: its fields are
// tickets.CreateOptions', whose JSON names are the ticket_create tool's
// arguments.
type TicketCreateRequest struct {
	tickets.CreateOptions
}

// TicketCreateResult is the new ticket.
type TicketCreateResult struct {
	tickets.Created
	Warnings []string `json:"-"`
}

// TicketCreate creates one ticket: the core of `the-loop ticket create` and
// the ticket_create tool. It validates the request against the config
// before resolving any provider (a refused option is a
// *tickets.OptionError), creates the ticket through the provider of its
// system, and for a Jira mirror of a GitHub issue (MirrorOf) names the new
// key in that issue through the GitHub provider. Like tickets.Create, when
// only the naming step fails the ticket exists: the result is filled and
// the error is a *tickets.MirrorLinkError.
func (s *Service) TicketCreate(ctx context.Context, req TicketCreateRequest) (TicketCreateResult, error) {
	opts := req.CreateOptions
	o, err := tickets.Validate(s.cfg, opts)
	if err != nil {
		return TicketCreateResult{}, err
	}
	p, err := s.provider("ticket create", o.System)
	if err != nil {
		return TicketCreateResult{}, err
	}
	if o.MirrorOf != "" && opts.MirrorTracker == nil {
		gh, err := s.provider("ticket create", github.System)
		if err != nil {
			return TicketCreateResult{}, fmt.Errorf("a mirror names the Jira key in the GitHub issue, which needs the GitHub integration: %w", err)
		}
		opts.MirrorTracker = gh
	}
	created, err := tickets.Create(ctx, s.cfg, p, opts)
	return TicketCreateResult{Created: created}, err
}

// TicketProjectsRequest asks for the configured Jira projects.
type TicketProjectsRequest struct{}

// TicketProjectsResult lists the Jira project keys tickets may be created
// in (empty, never nil, when none are configured).
type TicketProjectsResult struct {
	Projects []string `json:"projects"`
	Warnings []string `json:"-"`
}

// TicketProjects returns the configured Jira project keys: the core of
// `the-loop ticket projects` and the ticket_projects tool. It sends no
// request.
func (s *Service) TicketProjects(ctx context.Context, _ TicketProjectsRequest) (TicketProjectsResult, error) {
	keys := tickets.Projects(s.cfg)
	if keys == nil {
		keys = []string{}
	}
	return TicketProjectsResult{Projects: keys}, ctx.Err()
}
