package critic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/internal/atomicfile"
	"github.com/the-loop/the-loop/internal/lazyre"
	"github.com/the-loop/the-loop/runtime/review"
	"github.com/the-loop/the-loop/store"
)

// Recorder keeps every critic round on its work item: the envelope is
// saved as a file and the run, with its digest and path, is recorded in the
// store together with a critic.ran or critic.unavailable event.
type Recorder struct {
	Store *store.Store
	// Dir receives one <run id>.json file per round (created 0700).
	Dir string
}

var runIDRE = lazyre.New(`^cr-[0-9A-Za-z-]{1,80}$`)

// Record saves e and records it on (repo, item) at node. Only an envelope
// Runner.Run returned in this process is accepted: one decoded from JSON
// (a file, a tool argument) is no proof that a critic ran. The envelope
// file is written (atomically, mode 0600) before the record that names it,
// so a recorded run always has its output on disk.
func (r Recorder) Record(ctx context.Context, repo, item, node string, e Envelope) (store.CriticRun, error) {
	if r.Store == nil || r.Dir == "" {
		return store.CriticRun{}, errors.New("record critic run: the recorder has no store or output directory")
	}
	if !e.ran {
		return store.CriticRun{}, errors.New("record critic run: only a round the loop ran itself is recorded; run the critic through the loop")
	}
	if !runIDRE().MatchString(e.RunID) {
		return store.CriticRun{}, fmt.Errorf("record critic run: %q is not a run id from a critic envelope", e.RunID)
	}
	blob, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return store.CriticRun{}, fmt.Errorf("record critic run %s: %w", e.RunID, err)
	}
	path := filepath.Join(r.Dir, e.RunID+".json")
	if err := writeNew(path, append(blob, '\n')); err != nil {
		return store.CriticRun{}, fmt.Errorf("record critic run %s: %w", e.RunID, err)
	}
	sum := sha256.Sum256([]byte(e.Output))
	run := store.CriticRun{
		ID: e.RunID, Repo: repo, WorkItem: item, Node: node, Critic: e.Critic, PromptSHA256: e.PromptSHA256,
		StartedAt: e.Started, EndedAt: e.Ended, Truncated: e.Truncated, Unavailable: e.Unavailable,
		OutputSHA256: hex.EncodeToString(sum[:]), OutputPath: path,
	}
	if e.Exit != nil {
		run.ExitStatus = e.Exit.String()
	}
	if err := r.Store.RecordCriticRun(ctx, run); err != nil {
		_ = os.Remove(path)
		return store.CriticRun{}, err
	}
	return run, nil
}

// writeNew writes a run's output once (atomicfile.WriteNew): a second
// write of the same path is refused.
func writeNew(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := atomicfile.WriteNew(path, data, 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; a run is recorded once", path)
		}
		return err
	}
	return nil
}

// ReviewRuns turns an item's recorded runs into what the round-table rules
// read. With node set, only the runs made at that node are kept, so a
// round of the design critic never counts as a round of critic-review.
func ReviewRuns(runs []store.CriticRun, node string) []review.Run {
	out := make([]review.Run, 0, len(runs))
	for _, r := range runs {
		if node != "" && r.Node != node {
			continue
		}
		out = append(out, review.Run{ID: r.ID, Critic: r.Critic, Unavailable: r.Unavailable})
	}
	return out
}
