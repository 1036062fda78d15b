package service

import (
	"context"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// HandleRecorder is the session supervisor's store: the state database
// behind h, opened on first use.
func HandleRecorder(h *store.Handle) sessions.Recorder { return handleRecorder{h} }

type handleRecorder struct{ h *store.Handle }

func (r handleRecorder) StartSession(ctx context.Context, sess store.Session, evs ...store.Event) error {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return err
	}
	return st.StartSession(ctx, sess, evs...)
}

func (r handleRecorder) FinishSession(ctx context.Context, sess store.Session, evs ...store.Event) error {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return err
	}
	return st.FinishSession(ctx, sess, evs...)
}

func (r handleRecorder) UpdateSessionUsage(ctx context.Context, id string, u store.SessionUsage) error {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return err
	}
	return st.UpdateSessionUsage(ctx, id, u)
}

func (r handleRecorder) RepoSpend(ctx context.Context, repo string, since time.Time) (store.Spend, error) {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return store.Spend{}, err
	}
	return st.RepoSpend(ctx, repo, since)
}

func (r handleRecorder) ItemSpend(ctx context.Context, repo, item string) (store.Spend, error) {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return store.Spend{}, err
	}
	return st.ItemSpend(ctx, repo, item)
}

func (r handleRecorder) ListSessions(ctx context.Context, f store.SessionFilter) ([]store.Session, error) {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return nil, err
	}
	return st.ListSessions(ctx, f)
}

func (r handleRecorder) AppendEvents(ctx context.Context, repo, id string, evs []store.Event) error {
	st, err := r.h.Writable(ctx)
	if err != nil {
		return err
	}
	return st.AppendEvents(ctx, repo, id, evs)
}

// SensitiveEnv names the variables no session gets unless a harness lists
// them under secretEnv: runtime.SensitiveEnv, the one list.
func SensitiveEnv(cfg *config.Config) []string { return runtime.SensitiveEnv(cfg) }
