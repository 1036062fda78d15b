package service

import (
	"context"
	"sync"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/httpx"
	"github.com/the-loop/the-loop/integrations/providers"
)

// ConfiguredProviders returns the provider factory of a process: each
// system's provider is built once, from the config, and then shared by
// every poll cycle and tool call, with every request bounded by
// integrations.requestTimeoutSeconds and conditional-request answers kept
// in the state store, so they stay free across cycles and restarts.
func (s *Service) ConfiguredProviders(getenv func(string) string) func(system string) (integrations.Provider, error) {
	var mu sync.Mutex
	built := map[string]integrations.Provider{}
	return func(system string) (integrations.Provider, error) {
		mu.Lock()
		defer mu.Unlock()
		if p, ok := built[system]; ok {
			return p, nil
		}
		p, err := providers.NewWith(s.Config, system, getenv, providers.Options{Pages: storePages{s}})
		if err != nil {
			return nil, err
		}
		built[system] = p
		return p, nil
	}
}

// storePages is the state store as the providers' page cache, opened on
// first use.
type storePages struct{ s *Service }

var _ httpx.PageStore = storePages{}

func (p storePages) LoadPage(ctx context.Context, key string) (httpx.Page, bool, error) {
	st, err := p.s.writableStore(ctx)
	if err != nil {
		return httpx.Page{}, false, err
	}
	return st.LoadPage(ctx, key)
}

func (p storePages) SavePage(ctx context.Context, key string, page httpx.Page) error {
	st, err := p.s.writableStore(ctx)
	if err != nil {
		return err
	}
	return st.SavePage(ctx, key, page)
}

func (p storePages) TouchPage(ctx context.Context, key string) error {
	st, err := p.s.writableStore(ctx)
	if err != nil {
		return err
	}
	return st.TouchPage(ctx, key)
}
