package gates

import (
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

const HookSetPhaseLabel = "set-phase-label"

// SetPhaseLabel moves the ticket to the node's phase label (loop:<phase>):
// it adds that label and removes every other loop:* label, leaving labels
// outside the prefix alone. A node with no phase sets none. A failure is a
// degradation, never a verdict.
func SetPhaseLabel(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.Node == nil || hc.Node.Phase == "" {
		return runtime.Skipped(HookSetPhaseLabel, "node declares no phase label"), nil
	}
	label := integrations.PhaseLabel(hc.Node.Phase)
	if hc.ReadOnly {
		return runtime.Skipped(HookSetPhaseLabel, gateReadOnly), nil
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(HookSetPhaseLabel, why, "label", label, "applied", false), nil
	}
	if err := integrations.SetPhaseLabel(hc.Context, p, hc.TicketRef, hc.Node.Phase); err != nil {
		return gateDegrade(HookSetPhaseLabel, err.Error(), "label", label, "applied", false), nil
	}
	return runtime.OK(HookSetPhaseLabel, gateData("label", label, "applied", true)), nil
}
