package service

import (
	"context"
	"log/slog"
	"sync"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/internal/httpx"
	"github.com/the-loop/the-loop/internal/metrics"
	"github.com/the-loop/the-loop/store"
)

// ConfiguredProviders returns the provider factory of a process (the
// Providers of Deps): each system's provider is built once, from cfg, and
// then shared by every poll cycle and tool call, with every request bounded
// by integrations.requestTimeoutSeconds and conditional-request answers kept
// in the state store db, so they stay free across cycles and restarts.
func ConfiguredProviders(cfg *config.Config, getenv func(string) string, db *store.Handle, log *slog.Logger, m *metrics.Metrics) func(system string) (integrations.Provider, error) {
	var mu sync.Mutex
	built := map[string]integrations.Provider{}
	return func(system string) (integrations.Provider, error) {
		mu.Lock()
		defer mu.Unlock()
		if p, ok := built[system]; ok {
			return p, nil
		}
		p, err := providers.NewWith(cfg, system, getenv, providers.Options{Pages: storePages{db}, Logger: log, Wire: m.RoundTripper})
		if err != nil {
			return nil, err
		}
		built[system] = p
		return p, nil
	}
}

// storePages is the state store as the providers' page cache, opened on
// first use.
type storePages struct{ db *store.Handle }

var _ httpx.PageStore = storePages{}

func (p storePages) LoadPage(ctx context.Context, key string) (httpx.Page, bool, error) {
	st, err := p.db.Writable(ctx)
	if err != nil {
		return httpx.Page{}, false, err
	}
	page, found, err := st.LoadPage(ctx, key)
	return httpx.Page(page), found, err
}

func (p storePages) SavePage(ctx context.Context, key string, page httpx.Page) error {
	st, err := p.db.Writable(ctx)
	if err != nil {
		return err
	}
	return st.SavePage(ctx, key, store.Page(page))
}

func (p storePages) TouchPage(ctx context.Context, key string) error {
	st, err := p.db.Writable(ctx)
	if err != nil {
		return err
	}
	return st.TouchPage(ctx, key)
}
