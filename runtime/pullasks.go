package runtime

import (
	"context"
	"errors"
	"fmt"
)

// PullAsk is a pull request a launched session asked the loop to open or
// adopt: its server holds no code host integration, so the poller opens it
// on its next cycle. Opening one only adds work, so nothing about an ask
// is signed.
type PullAsk struct {
	// Repo is OWNER/REPO to open it in ("" = the origin repository).
	Repo string `json:"repo,omitempty"`
	// Base is the branch it merges into ("" = the default).
	Base  string `json:"base,omitempty"`
	Draft bool   `json:"draft,omitempty"`
	By    string `json:"by,omitempty"`
	At    string `json:"at"`
}

// AskPull records ask on work item id, once per repository: asking again
// for the same repository keeps the first ask. It reports whether the ask
// is new.
func (r *Runtime) AskPull(ctx context.Context, id string, ask PullAsk) (bool, error) {
	if err := ValidateID(id); err != nil {
		return false, err
	}
	if ask.Repo != "" {
		if err := CheckRepo(ask.Repo); err != nil {
			return false, err
		}
	}
	added := false
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		for _, a := range st.PullAsks {
			if a.Repo == ask.Repo || (a.Repo != "" && ask.Repo != "" && SameRepo(a.Repo, ask.Repo)) {
				return nil, errNoSave
			}
		}
		if ask.At == "" {
			ask.At = Now()
		}
		a := ask
		st.PullAsks = append(st.PullAsks, &a)
		added = true
		return []EventRecord{{Name: "graph.pull_request_asked", Data: map[string]any{"repository": ask.Repo, "base": ask.Base, "by": ask.By}}}, nil
	})
	if errors.Is(err, errNoSave) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ask for the pull request of %s: %w", id, err)
	}
	return added, nil
}

// SettlePullAsk removes the ask for repo from work item id once the loop
// opened it (outcome "") or gave up on it (outcome says why).
func (r *Runtime) SettlePullAsk(ctx context.Context, id, repo, outcome string) error {
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		for i, a := range st.PullAsks {
			if a.Repo != repo {
				continue
			}
			st.PullAsks = append(st.PullAsks[:i:i], st.PullAsks[i+1:]...)
			name, data := "graph.pull_request_ask_opened", map[string]any{"repository": repo}
			if outcome != "" {
				name, data["reason"] = "graph.pull_request_ask_refused", outcome
			}
			return []EventRecord{{Name: name, Data: data}}, nil
		}
		return nil, errNoSave
	})
	if errors.Is(err, errNoSave) {
		return nil
	}
	return err
}
