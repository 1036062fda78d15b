package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// GateRequest configures one stop-hook evaluation.
type GateRequest struct {
	Repo string `json:"repo"`
	// WorkItems to gate; empty means every started item that is not at a
	// terminal node.
	WorkItems []string `json:"workItems"`
	// MaxAttempts caps how many consecutive stops are blocked per
	// (repository, work item) before the gate lets go.
	MaxAttempts int `json:"maxAttempts"`
	// CounterDir holds the attempt counters ("" = under $XDG_STATE_HOME).
	CounterDir string `json:"-"`
}

// GateFinding is one blocking node.
type GateFinding struct {
	WorkItem string   `json:"workItem"`
	Node     string   `json:"node"`
	Messages []string `json:"messages"`
	Attempt  int      `json:"attempt"`
}

// GateResult says whether to block the stop.
type GateResult struct {
	// InUse is false when the repository does not use the loop.
	InUse    bool          `json:"inUse"`
	Block    bool          `json:"block"`
	Findings []GateFinding `json:"findings"`
	// GaveUp lists items whose attempt cap was reached.
	GaveUp   []string `json:"gaveUp"`
	Warnings []string `json:"-"`
}

// Gate runs the equivalent of `check --recompute` and blocks only on a
// block: a wait for a human never blocks a stop, and neither does an item
// an authorized person paused or stopped.
func (s *Service) Gate(ctx context.Context, req GateRequest) (GateResult, error) {
	res := GateResult{Findings: []GateFinding{}, GaveUp: []string{}}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return res, nil // not a repository we can read: nothing to gate
	}
	if fi, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(repo.SpecRoot))); err != nil || !fi.IsDir() {
		return res, nil
	}
	res.InUse = true
	ids := req.WorkItems
	if len(ids) == 0 {
		if ids, err = s.activeItems(ctx, repo); err != nil {
			return res, err
		}
	}
	if req.MaxAttempts <= 0 {
		req.MaxAttempts = 3
	}
	for _, id := range ids {
		counter := counterPath(req.CounterDir, repo.Root, id)
		if errors.Is(s.Held(ctx, ItemRequest{Repo: repo.Root, WorkItem: id}), runtime.ErrHeld) || s.cleanedUp(ctx, repo, id) {
			// A paused or stopped item asks the agent to stop, never to go
			// on; a closed one leaves nothing to hold a session on.
			_ = os.Remove(counter)
			continue
		}
		cr, err := s.Check(ctx, CheckRequest{Repo: repo.Root, WorkItem: id, Recompute: true})
		if err != nil {
			return res, err
		}
		rep, g := cr.Reports[0], cr.Graphs[id]
		if !rep.Blocked(g) {
			_ = os.Remove(counter)
			continue
		}
		n := readCounter(counter) + 1
		if n > req.MaxAttempts {
			res.GaveUp = append(res.GaveUp, id)
			continue
		}
		if err := runtime.WriteFileAtomic(counter, []byte(strconv.Itoa(n)), 0o600); err != nil {
			return res, fmt.Errorf("record the gate attempt: %w", err)
		}
		reached, _ := rep.Reached(g)
		for _, nr := range reached {
			if nr.Status == string(runtime.Block) {
				res.Findings = append(res.Findings, GateFinding{WorkItem: id, Node: nr.Node, Messages: nr.Messages, Attempt: n})
				break
			}
		}
		res.Block = true
	}
	return res, nil
}

// cleanedUp reports an item whose walk went to cleanup (its ticket was
// closed, or an authorized person asked for it).
func (s *Service) cleanedUp(ctx context.Context, repo *repoconfig.Repo, id string) bool {
	st, release, err := s.readStore(ctx)
	if err != nil {
		return false
	}
	defer release()
	state, _, err := (&persister{st: st, repo: repo}).Load(ctx, id)
	return err == nil && state.CurrentNode == "cleanup"
}

// activeItems are items with recorded state that are not at a terminal node.
func (s *Service) activeItems(ctx context.Context, repo *repoconfig.Repo) ([]string, error) {
	ids, err := repo.WorkItems()
	if err != nil {
		return nil, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	p := &persister{st: st, repo: repo}
	var out []string
	for _, id := range ids {
		state, _, err := p.Load(ctx, id)
		if err != nil || state.CurrentNode == "" {
			continue
		}
		g, _, err := loopFor(state)
		if err != nil {
			continue
		}
		if n, ok := g.Node(state.CurrentNode); ok && n.Terminal {
			continue
		}
		out = append(out, id)
	}
	return out, nil
}

func counterPath(dir, repo, id string) string {
	if dir == "" {
		base := os.Getenv("XDG_STATE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".local", "state")
		}
		dir = filepath.Join(base, "the-loop", "gate")
	}
	sum := sha256.Sum256([]byte(repo + "\x00" + id))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".count")
}

func readCounter(path string) int {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}

// Summary renders the findings for the agent.
func (r GateResult) Summary() string {
	var b strings.Builder
	b.WriteString("the-loop gate: a node you are working on is blocked; fix it before stopping.\n")
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s is blocked at %s (attempt %d):\n", f.WorkItem, f.Node, f.Attempt)
		for _, m := range f.Messages {
			fmt.Fprintf(&b, "  - %s\n", m)
		}
	}
	b.WriteString("Run `the-loop check <id> --recompute` to see every finding.")
	return b.String()
}
