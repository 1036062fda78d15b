package main

import (
	"fmt"
	"io"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

// newService loads the config and builds the core service.
func newService(env *Env, cfgPath, db string) (*service.Service, error) {
	cfg, err := loadConfig(env, cfgPath)
	if err != nil {
		return nil, err
	}
	svc, err := service.NewWithEnv(cfg, env.Getenv)
	if err != nil {
		return nil, err
	}
	if db != "" {
		svc.DBPath = db
	} else if p := env.Getenv("THE_LOOP_DB"); p != "" {
		svc.DBPath = p
	}
	return svc, nil
}

// writeJSON prints v as indented UTF-8 JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := runtime.MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// integrationsProvider is the provider type the factories return.
type integrationsProvider = integrations.Provider
