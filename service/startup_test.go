package service

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

func TestOperationNeedsNameTheHookAndNode(t *testing.T) {
	needs, err := OperationNeeds()
	require.NoError(t, err)
	assert.Contains(t, needs[integrations.OpAddLabels], "hook set-phase-label on node")
	assert.Contains(t, needs[integrations.OpCreateComment], "hook ")
	assert.Equal(t, "the poller", needs[integrations.OpListOpenIssues])
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
	svc := benchService(t)
	svc.Provider = func(string) (integrations.Provider, error) {
		return limited{ops: []integrations.Op{integrations.OpListComments, integrations.OpCreateComment}}, nil
	}
	err := svc.CheckIntegrations("github")
	var miss *integrations.MissingOperationError
	require.ErrorAs(t, err, &miss)
	assert.Contains(t, err.Error(), "configure a provider that does")
	assert.Contains(t, err.Error(), "remove the need")
	assert.Contains(t, err.Error(), "limited")
}
