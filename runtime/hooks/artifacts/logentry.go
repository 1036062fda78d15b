package artifacts

import (
	"fmt"
	"time"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// HookLogEntry appends to the execution log.
const HookLogEntry = "log-entry"

// ExecutionLog is the work item's execution log; its front matter
// declares the repositories the work touches (`repos:`).
const ExecutionLog = "execution-log.md"

// clock is the time source for dated headings (tests pin it).
var clock = time.Now

// LogEntry appends a dated "entry/exit <node>" block to the work item's
// execution log. It never creates the log, only appends to it, and writes
// nothing under check. A write failure is a degradation (pass with
// data.error), never a verdict.
func LogEntry(hc *runtime.HookContext) (runtime.Result, error) {
	d, err := specdir.Open(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	if !d.Present(ExecutionLog) {
		return runtime.Skipped(HookLogEntry, "no execution log for this work item"), nil
	}
	if hc.ReadOnly {
		return runtime.Skipped(HookLogEntry, "the execution log is not written under check"), nil
	}
	node := hc.NodeID()
	entry := fmt.Sprintf("\n### %s — %s %s\n\n- **Node:** %s\n- **Boundary:** %s\n",
		clock().Local().Format("2006-01-02"), hc.Boundary, node, node, hc.Boundary)
	if err := d.Append(ExecutionLog, entry); err != nil {
		return runtime.OK(HookLogEntry, map[string]any{"appended": false, "error": err.Error()}), nil
	}
	return runtime.OK(HookLogEntry, map[string]any{"appended": true}), nil
}
