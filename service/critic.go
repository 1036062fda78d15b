package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/internal/nearest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// CriticListRequest asks which critics exist and can run.
type CriticListRequest struct{}

// CriticListResult is every configured critic, in configuration order, and
// the review caps.
type CriticListResult struct {
	Critics  []critic.Status `json:"critics"`
	Reviews  critic.Reviews  `json:"reviews"`
	Warnings []string        `json:"-"`
}

// CriticList reports, for every configured critic, the executable found and
// its version, or why it cannot run. It runs each critic's version probe
// and nothing else.
func (s *Service) CriticList(ctx context.Context, _ CriticListRequest) (CriticListResult, error) {
	res := CriticListResult{Critics: s.critics().List(ctx, s.cfg.Critic.Critics), Reviews: s.cfg.Critic.Reviews}
	if len(s.cfg.Critic.Critics) == 0 {
		res.Warnings = append(res.Warnings, "no critic is configured; an operator adds one under `critics:` in the loop's configuration (docs/reviews.md)")
	}
	return res, nil
}

// CriticRunRequest runs one critic round.
type CriticRunRequest struct {
	Repo string `json:"repo"`
	// WorkItem, when set, records the round on the item at the node it
	// stands at; without it the round is run and counts for no review.
	WorkItem string `json:"workItem"`
	Critic   string `json:"critic"`
	// PromptFile holds the review assignment (relative: to the repository).
	PromptFile string `json:"promptFile"`
	// PR, when set, records the round on that pull request's loop of the
	// work item, at the node it stands at (its critic-review); PRRepo is
	// its repository (default: the origin repository).
	PR     int    `json:"pr"`
	PRRepo string `json:"prRepo"`
}

// CriticRunResult is the round's envelope, which is its JSON.
type CriticRunResult struct {
	critic.Envelope
	// Node is where the round was recorded ("" when it was not).
	Node     string   `json:"-"`
	Warnings []string `json:"-"`
}

// CriticRun runs one round of a configured critic in the work item's
// working tree and, with a work item, records it there: the envelope is
// saved beside the state store, the run is recorded in the store with its
// event, and its signed receipt goes into the item's state, where the
// critic-review gate reads it. Running a critic adds work to the item; it
// never approves, skips or forces anything. A paused or stopped item
// refuses it.
func (s *Service) CriticRun(ctx context.Context, req CriticRunRequest) (CriticRunResult, error) {
	c, err := s.findCritic(req.Critic)
	if err != nil {
		return CriticRunResult{}, err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return CriticRunResult{}, err
	}
	prompt := strings.TrimSpace(req.PromptFile)
	if prompt != "" && !filepath.IsAbs(prompt) {
		prompt = filepath.Join(repo.Root, prompt)
	}
	if err := s.allowedPath(prompt, "prompt file"); prompt != "" && err != nil {
		return CriticRunResult{}, err
	}
	res := CriticRunResult{Warnings: repo.Warnings}
	var sess *session
	if req.WorkItem == "" && (req.PR != 0 || req.PRRepo != "") {
		return res, invalid(errors.New("pr names a pull request's loop of a work item: name the work item too"))
	}
	if req.WorkItem != "" {
		if sess, err = s.criticSession(ctx, repo.Root, req.WorkItem); err != nil {
			return res, err
		}
		if req.PR != 0 || req.PRRepo != "" {
			if sess, err = s.criticInner(ctx, repo.Root, req); err != nil {
				return res, err
			}
		}
		res.Node, res.Warnings = sess.state.CurrentNode, sess.warns
	}
	env, err := s.critics().Run(ctx, c, prompt, repo.Root)
	if err != nil {
		return res, invalid(err) // nothing ran: the prompt file or the working tree is the caller's to fix
	}
	res.Envelope = env
	if sess == nil {
		res.Warnings = append(res.Warnings, "not recorded: no work item was named, so this round counts for no review")
		return res, nil
	}
	return res, s.recordCriticRun(ctx, sess, req.WorkItem, env)
}

// criticSession opens the item a round is recorded on: started, and not
// held.
func (s *Service) criticSession(ctx context.Context, repo, id string) (*session, error) {
	sess, err := s.open(ctx, repo, id, "")
	if err != nil {
		return nil, err
	}
	if sess.state.CurrentNode == "" {
		return nil, invalid(fmt.Errorf("%s has not entered the graph; a critic round is recorded at the node the item stands at, so start the walk first", id))
	}
	if h := runtime.Held(s.cfg, sess.state); h != nil {
		return nil, h
	}
	return sess, nil
}

// criticInner opens the pull request loop a round is recorded on.
func (s *Service) criticInner(ctx context.Context, repo string, req CriticRunRequest) (*session, error) {
	if req.PR <= 0 {
		return nil, invalid(fmt.Errorf("pr must be the pull request's number (a positive whole number), got %d", req.PR))
	}
	link, err := s.innerFor(ctx, repo, req.WorkItem, req.PRRepo, req.PR)
	if err != nil {
		return nil, err
	}
	inner, err := s.openInner(ctx, repo, req.WorkItem, link)
	if err != nil {
		return nil, err
	}
	if inner.state.CurrentNode == "" {
		return nil, invalid(fmt.Errorf("the loop of %s has not started; a critic round is recorded at the node it stands at", link.Key()))
	}
	return inner, nil
}

// recordCriticRun keeps env on the item: the store's run record (with the
// saved envelope and its event), then the signed receipt in the state.
func (s *Service) recordCriticRun(ctx context.Context, sess *session, id string, env critic.Envelope) error {
	st, err := s.writableStore(ctx)
	if err != nil {
		return fmt.Errorf("critic %s ran (run %s) but could not be recorded, so it does not count: %w", env.Critic, env.RunID, err)
	}
	rec := critic.Recorder{Store: st, Dir: s.criticRunsDir()}
	run, err := rec.Record(ctx, sess.repo.Root, id, sess.state.CurrentNode, env)
	if err != nil {
		return fmt.Errorf("critic %s ran (run %s) but could not be recorded, so it does not count: %w", env.Critic, env.RunID, err)
	}
	receipt := runtime.NewCriticRunReceipt(runtime.CriticRun{ID: run.ID, Critic: run.Critic, Node: run.Node, Unavailable: run.Unavailable},
		run.PromptSHA256, run.OutputSHA256)
	if err := sess.rt.RecordCriticRun(ctx, id, receipt); err != nil {
		return fmt.Errorf("critic %s ran (run %s) and is in the store, but its receipt is not in the item's state, so it does not count: %w", env.Critic, env.RunID, err)
	}
	return nil
}

func (s *Service) findCritic(name string) (critic.Critic, error) {
	names := s.cfg.Critic.Names()
	if len(names) == 0 {
		return critic.Critic{}, invalid(errors.New("no critic is configured; an operator adds one under `critics:` in the loop's configuration (docs/reviews.md)"))
	}
	c, ok := s.cfg.Critic.Find(strings.TrimSpace(name))
	if !ok {
		msg := fmt.Sprintf("critic %q is not configured (configured: %s)", name, strings.Join(names, ", "))
		if p := nearest.Phrase(nearest.Close(strings.TrimSpace(name), names)); p != "" {
			msg += "; " + p
		}
		return critic.Critic{}, invalid(errors.New(msg))
	}
	return c, nil
}

// critics is the runner of critic rounds (Deps.Critics, else one reading
// the process environment).
func (s *Service) critics() *critic.Runner {
	if s.deps.Critics != nil {
		return s.deps.Critics
	}
	return &critic.Runner{Sensitive: runtime.SensitiveEnv(s.cfg)}
}

// criticRunsDir holds the saved envelopes, beside the state store (this
// host's state folder for a PostgreSQL store): they are the host's
// records, not the repository's.
func (s *Service) criticRunsDir() string {
	dir, err := store.LocalDir(s.DBPath())
	if err != nil {
		dir = filepath.Dir(s.DBPath())
	}
	return filepath.Join(dir, "critic-runs")
}
