package service

import (
	"fmt"
	"slices"
	"sort"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
)

// pollerOps are what the poller itself needs of a provider.
var pollerOps = []integrations.Op{integrations.OpListComments, integrations.OpListOpenIssues}

// OperationNeeds lists every operation the shipped loops' hooks declare (in
// the hook list, runtime/hooks), each with the first hook and node that
// needs it, and the poller's own.
func OperationNeeds() (map[integrations.Op]string, error) {
	needs := map[integrations.Op]string{}
	for _, name := range Loops() {
		g, err := Graph(name)
		if err != nil {
			return nil, err
		}
		for _, n := range g.Nodes {
			for _, e := range slices.Concat(n.Entry, n.Exit) {
				for _, op := range e.Ops() {
					if _, seen := needs[op]; !seen {
						needs[op] = fmt.Sprintf("hook %s on node %s of %s", e.Hook, n.ID, name)
					}
				}
			}
		}
	}
	for _, op := range pollerOps {
		if _, seen := needs[op]; !seen {
			needs[op] = "the poller"
		}
	}
	return needs, nil
}

// CheckIntegrations fails when the provider of system cannot perform an
// operation the shipped loops need, naming the operation, what needs it and
// both fixes. It is the start-up check of the poller and the MCP server.
func (s *Service) CheckIntegrations(systems ...string) error {
	if s.deps.Providers == nil {
		return nil
	}
	needs, err := OperationNeeds()
	if err != nil {
		return err
	}
	sort.Strings(systems)
	for _, sys := range systems {
		p, err := s.Provider(sys)
		if err != nil {
			return fmt.Errorf("integration %s: %w", sys, err)
		}
		if err := providers.CheckOperations(p, needs); err != nil {
			return err
		}
	}
	return nil
}
