package sessions

import (
	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/store"
)

// meterFor returns a meter reading what harness name prints (Claude Code's
// stream-json for a harness no longer configured, as before adapters).
func (s *Supervisor) meterFor(name string) *harness.Meter {
	if c, ok := s.d.Harnesses[name]; ok {
		return harness.NewMeter(c.Format())
	}
	return harness.NewMeter(harness.OutputStreamJSON)
}

// priced is u with its cost estimated from the harness's prices where its
// CLI reports none: the model the CLI named, else the one it was launched
// with. A cost that cannot be estimated stays unknown.
func (s *Supervisor) priced(name, model string, u harness.Usage) harness.Usage {
	harness.Estimate(&u, s.d.Harnesses[name].Prices, firstNonEmpty(u.Model, model))
	return u
}

// recorded is u as the store records it.
func recorded(u harness.Usage) store.SessionUsage {
	return store.SessionUsage{HarnessSession: u.HarnessSession, Turns: u.Turns, Tokens: u.Tokens(), InputTokens: u.InputTokens,
		OutputTokens: u.OutputTokens, CostUSD: u.CostUSD, CostSource: u.Cost, Result: u.Result, Error: u.Error}
}

// figures are what the exited event says of a session.
func figures(data map[string]any, u harness.Usage) map[string]any {
	data["turns"], data["tokens"], data["inputTokens"], data["outputTokens"] = u.Turns, u.Tokens(), u.InputTokens, u.OutputTokens
	data["costUsd"], data["cost"] = u.CostUSD, costSource(u.Cost)
	for k, v := range map[string]string{"result": u.Result, "error": u.Error} {
		if v != "" {
			data[k] = v
		}
	}
	if u.RateLimited {
		data["rateLimited"] = true
	}
	if len(u.Unknown) > 0 {
		data["unknownEvents"] = u.Unknown
	}
	return data
}

// costSource names a cost's source, "unknown" for none.
func costSource(src string) string {
	if src == "" {
		return "unknown"
	}
	return src
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
