package service

import (
	"context"
	"sort"
	"sync"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/runtime"
)

// HarnessListRequest lists the configured harnesses.
type HarnessListRequest struct{}

// HarnessListResult says, for each configured harness, whether it can run
// here: its program found on the sessions' PATH, its version, and whether
// its help lists every flag its adapter passes.
type HarnessListResult struct {
	Harnesses []harness.Status `json:"harnesses"`
	Warnings  []string         `json:"-"`
}

// HarnessList probes every configured harness, in name order, at most two
// at a time (each probe runs the CLI's --version and --help).
func (s *Service) HarnessList(ctx context.Context, _ HarnessListRequest) (HarnessListResult, error) {
	names := make([]string, 0, len(s.cfg.Harnesses))
	for n := range s.cfg.Harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	res := HarnessListResult{Harnesses: make([]harness.Status, len(names))}
	if len(names) == 0 {
		res.Warnings = append(res.Warnings, "no harness is configured; an operator adds one under `harnesses:` in the loop's configuration (docs/sessions.md)")
		return res, nil
	}
	opts := harness.ProbeOptions{Sensitive: runtime.SensitiveEnv(s.cfg)}
	slots := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			res.Harnesses[i] = harness.Probe(ctx, n, s.cfg.Harnesses[n], opts)
		}()
	}
	wg.Wait()
	return res, nil
}
