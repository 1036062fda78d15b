package work

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// fromRecord is verify-tests under check, which runs nothing: the node is
// judged by the latest run the loop recorded for it — a signed receipt in
// the state (under --recompute, only one that verifies). It passes when
// that run passed and covered every command declared now, and its evidence
// file, when present, is the one the run wrote. It blocks when the run
// failed, when no run is recorded, when a command was declared after it,
// and when the evidence file was edited.
func fromRecord(hc *runtime.HookContext, cmds []command) (runtime.Result, error) {
	node := hc.NodeID()
	var run runtime.TestRun
	ok := false
	if hc.State != nil {
		run, ok = hc.State.TestRunAt(node)
	}
	if !ok {
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "no run of the repository's commands is recorded for %s; they run when the node is claimed (`the-loop graph complete`), and check reports that run", node)), nil
	}
	if run.Outcome != runtime.TestsPassed {
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "the last run at %s failed (%s on %s); fix it and claim the node again", node, failedText(run), commitText(run))), nil
	}
	ran := map[string]bool{}
	for _, c := range run.Commands {
		ran[c.Key+"\x00"+c.Command] = c.Exit == "exit 0"
	}
	var missing []string
	for _, c := range cmds {
		if !ran[c.key+"\x00"+c.shown] {
			missing = append(missing, c.label+" ("+c.shown+")")
		}
	}
	if len(missing) > 0 {
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "the recorded run at %s did not pass %s, declared now; claim the node again to run it", node, strings.Join(missing, ", "))), nil
	}
	note, edited, err := evidenceNote(hc, run)
	if err != nil {
		return runtime.Result{}, err
	}
	if edited {
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "%s", note)), nil
	}
	res := runtime.OK(HookVerifyTests, map[string]any{"commit": run.Commit, "evidence": run.Evidence})
	res.Messages = []runtime.Message{{Text: "recorded run: " + passedText(run) + note, Severity: runtime.SevInfo}}
	return res, nil
}

// evidenceNote checks the run's evidence file against the receipt: a file
// that differs is edited evidence; a missing one (not committed here) is
// noted.
func evidenceNote(hc *runtime.HookContext, run runtime.TestRun) (string, bool, error) {
	if run.Evidence == "" {
		return "", false, nil
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return "", false, err
	}
	defer d.Close()
	text, err := d.Read(run.Evidence)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return " (that file is not in this checkout)", false, nil
	case err != nil:
		return fmt.Sprintf("%s cannot be read (%v), so it cannot be shown to be the recorded run's output; claim the node again", run.Evidence, err), true, nil
	}
	sum := sha256.Sum256([]byte(text))
	if hex.EncodeToString(sum[:]) != run.EvidenceSHA256 {
		return fmt.Sprintf("%s is not the output the recorded run at %s wrote (it was edited); claim the node again to rerun the commands", run.Evidence, run.Node), true, nil
	}
	return "", false, nil
}

func failedText(run runtime.TestRun) string {
	i := slices.IndexFunc(run.Commands, func(c runtime.TestCommand) bool { return c.Exit != "exit 0" && c.Exit != "not run" })
	if i < 0 {
		return "a command did not pass"
	}
	c := run.Commands[i]
	return fmt.Sprintf("commands.%s `%s` ended with %s", c.Key, c.Command, c.Exit)
}
