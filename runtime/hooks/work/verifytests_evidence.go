package work

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/gitsafe"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// EvidenceFile is where verify-tests writes the output of node's run,
// relative to the spec folder.
func EvidenceFile(node string) string { return "evidence/tests-" + node + ".md" }

// gitState is the working tree's HEAD and whether it has uncommitted
// changes outside the item's own spec folder (whose state record and
// evidence the loop itself rewrites); "" and false outside a git
// repository or without git. In an item's tree git is pinned to the
// tree's own repository (internal/gitsafe): nothing the session wrote in
// its .git steers it.
func gitState(ctx context.Context, dir, specDir string, env []string) (string, bool) {
	pin := gitsafe.Open(dir)
	env = pin.Environ(env)
	git := func(args ...string) (string, bool) {
		res, err := proc.Run(ctx, proc.Command{Argv: append([]string{"git"}, pin.Args(args...)...), Dir: dir, Env: env, Timeout: 30 * time.Second, MaxOutput: 1 << 20})
		if err != nil || !res.Status.Success() {
			return "", false
		}
		return strings.TrimSpace(string(res.Stdout)), true
	}
	head, ok := git("rev-parse", "--verify", "HEAD")
	if !ok {
		return "", false
	}
	args := []string{"status", "--porcelain", "--", "."}
	if specDir != "" {
		args = append(args, ":(exclude)"+specDir)
	}
	status, _ := git(args...)
	return head, status != ""
}

func commitText(run runtime.TestRun) string {
	if run.Commit == "" {
		return "a working tree outside git"
	}
	short := run.Commit
	if len(short) > 12 {
		short = short[:12]
	}
	if run.Dirty {
		return short + " (with uncommitted changes)"
	}
	return short
}

// writeEvidence writes the run's output to its evidence file in the spec
// folder and records the file's name and digest in run.
func writeEvidence(hc *runtime.HookContext, run *runtime.TestRun, runs []ran) error {
	d, err := specdir.Open(hc)
	if err != nil {
		return err
	}
	defer d.Close()
	name := EvidenceFile(run.Node)
	doc := evidenceDoc(hc.WorkItem.ID, *run, runs)
	if err := d.WriteFile(name, []byte(doc)); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(doc))
	run.Evidence, run.EvidenceSHA256 = name, hex.EncodeToString(sum[:])
	return nil
}

// evidenceDoc renders the run: a table of the commands and, for each that
// ran, the end of its output. Secrets were redacted from the output
// already, and the document names no path of the host.
func evidenceDoc(id string, run runtime.TestRun, runs []ran) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Repository commands: %s at %s\n\n", id, run.Node)
	fmt.Fprintf(&b, "Run by the-loop (`verify-tests`) at %s on %s. Outcome: **%s**. ", time.Now().UTC().Format(time.RFC3339), commitText(run), run.Outcome)
	b.WriteString("The loop writes this file on every run and records a signed receipt of it; do not edit it.\n\n")
	b.WriteString("| key | command | result | time |\n|---|---|---|---|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.key, codeSpan(r.shown), r.exit, r.duration.Round(time.Millisecond))
	}
	for _, r := range runs {
		if r.exit == "not run" {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: %s\n\n", r.key, codeSpan(r.shown))
		out := strings.TrimRight(r.stdout, "\n")
		if e := strings.TrimRight(r.stderr, "\n"); e != "" {
			out = strings.TrimLeft(out+"\n--- standard error ---\n"+e, "\n")
		}
		if out == "" {
			b.WriteString("(no output)\n")
			continue
		}
		fence := markdown.Fence(out)
		fmt.Fprintf(&b, "%stext\n%s\n%s\n", fence, out, fence)
	}
	return b.String()
}

// codeSpan renders s as inline code that survives a table cell.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + " " + s + " " + ticks
}
