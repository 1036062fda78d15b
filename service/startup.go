package service

import (
	"fmt"
	"sort"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
)

// hookOps are the integration operations each side-effecting hook performs.
var hookOps = map[string][]integrations.Op{
	"set-phase-label":          {integrations.OpAddLabels, integrations.OpRemoveLabel},
	"request-review":           {integrations.OpCreateComment},
	"publish-artifact":         {integrations.OpCreateComment},
	"post-phase-selection":     {integrations.OpListComments, integrations.OpCreateComment},
	"classify-phase-selection": {integrations.OpCreateComment},
	"post-goal-request":        {integrations.OpListComments, integrations.OpCreateComment},
	"classify-goal":            {integrations.OpCreateComment},
	"post-review-brief":        {integrations.OpListComments, integrations.OpCreateComment},
}

// pollerOps are what the poller itself needs of a provider.
var pollerOps = []integrations.Op{integrations.OpListComments, integrations.OpListOpenIssues}

// OperationNeeds lists every operation the shipped loops' hooks need, each
// with the first hook and node that needs it.
func OperationNeeds() (map[integrations.Op]string, error) {
	needs := map[integrations.Op]string{}
	for _, name := range Loops() {
		g, err := Graph(name)
		if err != nil {
			return nil, err
		}
		for _, n := range g.Nodes {
			for _, chain := range [][]string{hookNames(n.Entry), hookNames(n.Exit)} {
				for _, h := range chain {
					for _, op := range hookOps[h] {
						if _, seen := needs[op]; !seen {
							needs[op] = fmt.Sprintf("hook %s on node %s of %s", h, n.ID, name)
						}
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

func hookNames[E interface{ HookName() string }](entries []E) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.HookName()
	}
	return out
}

// CheckIntegrations fails when the provider of system cannot perform an
// operation the shipped loops need, naming the operation, what needs it and
// both fixes. It is the start-up check of the poller and the MCP server.
func (s *Service) CheckIntegrations(systems ...string) error {
	if s.Provider == nil {
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
