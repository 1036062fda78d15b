package service

import (
	"context"
	"fmt"

	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/tickets"
)

// TicketCreate creates one ticket: the core of the ticket_create tool. It
// validates opts against the config before resolving any provider, creates
// the ticket through the provider for opts.System, and for a Jira mirror of
// a GitHub issue (opts.MirrorOf) names the new key in that issue through the
// GitHub provider. Like tickets.Create, when only the naming step fails the
// ticket exists: Created is filled and the error is a
// *tickets.MirrorLinkError.
func (s *Service) TicketCreate(ctx context.Context, opts tickets.CreateOptions) (tickets.Created, error) {
	o, err := tickets.Validate(s.cfg, opts)
	if err != nil {
		return tickets.Created{}, err
	}
	p, err := s.provider("ticket create", o.System)
	if err != nil {
		return tickets.Created{}, err
	}
	if o.MirrorOf != "" && opts.MirrorTracker == nil {
		gh, err := s.provider("ticket create", github.System)
		if err != nil {
			return tickets.Created{}, fmt.Errorf("a mirror names the Jira key in the GitHub issue, which needs the GitHub integration: %w", err)
		}
		opts.MirrorTracker = gh
	}
	return tickets.Create(ctx, s.cfg, p, opts)
}

// TicketProjects returns the configured Jira project keys (empty, never
// nil, when none are configured): the core of the ticket_projects tool.
func (s *Service) TicketProjects() []string {
	keys := tickets.Projects(s.cfg)
	if keys == nil {
		keys = []string{}
	}
	return keys
}
