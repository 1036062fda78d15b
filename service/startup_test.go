package service

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/hooks"
)

func TestOperationNeedsNameTheHookAndNode(t *testing.T) {
	needs, err := OperationNeeds()
	require.NoError(t, err)
	assert.Contains(t, needs[integrations.OpAddLabels], "hook set-phase-label on node")
	assert.Contains(t, needs[integrations.OpCreateComment], "hook ")
	assert.Equal(t, "the poller", needs[integrations.OpListOpenIssues])
	assert.Contains(t, needs[integrations.OpGetIssue], "hook set-phase-label on node", "set-phase-label reads the ticket's labels before it moves them")
}

// TestOperationNeedsAreTheDeclarationsOfTheHookList: the start-up check asks
// for exactly what the listed hooks the shipped loops call declare, plus the
// poller's own operations; nothing is kept by hand beside the list.
func TestOperationNeedsAreTheDeclarationsOfTheHookList(t *testing.T) {
	needs, err := OperationNeeds()
	require.NoError(t, err)
	reg, err := hooks.Registry()
	require.NoError(t, err)
	want := map[integrations.Op]bool{}
	for _, op := range pollerOps {
		want[op] = true
	}
	for _, name := range Loops() {
		g, err := Graph(name)
		require.NoError(t, err)
		for _, n := range g.Nodes {
			for _, e := range slices.Concat(n.Entry, n.Exit) {
				spec, ok := reg.Lookup(e.Hook)
				require.True(t, ok, e.Hook)
				for _, op := range spec.Ops {
					want[op] = true
				}
			}
		}
	}
	assert.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(needs)))
}

// limited declares only some operations.
type limited struct {
	integrations.Provider
	ops []integrations.Op
}

func (l limited) Name() string                  { return "limited" }
func (l limited) Operations() []integrations.Op { return l.ops }
func (l limited) ListComments(context.Context, integrations.Ref) ([]integrations.Comment, error) {
	return nil, errors.New("unused")
}

func TestCheckIntegrationsRefusesAProviderMissingAnOperation(t *testing.T) {
	svc := testService(t, nil, Deps{Providers: func(string) (integrations.Provider, error) {
		return limited{ops: []integrations.Op{integrations.OpListComments, integrations.OpCreateComment}}, nil
	}})
	err := svc.CheckIntegrations("github")
	var miss *integrations.MissingOperationError
	require.ErrorAs(t, err, &miss)
	assert.Contains(t, err.Error(), "configure a provider that does")
	assert.Contains(t, err.Error(), "remove the need")
	assert.Contains(t, err.Error(), "limited")
}
