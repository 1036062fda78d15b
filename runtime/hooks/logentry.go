package hooks

import (
	"fmt"
	"os"
	"time"

	"github.com/the-loop/the-loop/runtime"
)

const hookLogEntry = "log-entry"

// clock is the time source for dated headings (tests pin it).
var clock = time.Now

// logEntry appends a dated "entry/exit <node>" block to the work item's
// execution log. It never creates the log, only appends to it, and writes
// nothing under check. A write failure is a degradation (pass with
// data.error), never a verdict.
func logEntry(hc *runtime.HookContext) (runtime.Result, error) {
	d, err := openSpecDir(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	defer d.Close()
	if !d.present(executionLog) {
		return runtime.Skipped(hookLogEntry, "no execution log for this work item"), nil
	}
	if hc.ReadOnly {
		return runtime.Skipped(hookLogEntry, "the execution log is not written under check"), nil
	}
	node := hc.NodeID()
	entry := fmt.Sprintf("\n### %s — %s %s\n\n- **Node:** %s\n- **Boundary:** %s\n",
		clock().Local().Format("2006-01-02"), hc.Boundary, node, node, hc.Boundary)
	if err := appendText(d, executionLog, entry); err != nil {
		return runtime.OK(hookLogEntry, map[string]any{"appended": false, "error": err.Error()}), nil
	}
	return runtime.OK(hookLogEntry, map[string]any{"appended": true}), nil
}

// appendText appends s to an existing file in the spec folder.
func appendText(d *specDir, name, s string) error {
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open %s for appending: %w", d.rel(name), err)
	}
	if _, err := f.WriteString(s); err != nil {
		_ = f.Close()
		return fmt.Errorf("append to %s: %w", d.rel(name), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", d.rel(name), err)
	}
	return nil
}
