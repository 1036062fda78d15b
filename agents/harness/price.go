package harness

import (
	"fmt"
	"math"
)

// Price is what one model costs, in US dollars per million tokens. It
// estimates the cost of a session whose CLI reports none.
type Price struct {
	// Input and Output are required; a model that costs nothing says 0.
	Input  *float64 `yaml:"input" json:"input"`
	Output *float64 `yaml:"output" json:"output"`
	// CachedInput is a cache read (default: Input); CacheWrite a cache
	// write (default: Input).
	CachedInput *float64 `yaml:"cachedInput" json:"cachedInput,omitempty"`
	CacheWrite  *float64 `yaml:"cacheWrite" json:"cacheWrite,omitempty"`
}

// Cost sources: where a session's cost figure came from. A session with
// neither has an unknown cost (""), never 0.
const (
	CostReported  = "reported"  // the CLI said
	CostEstimated = "estimated" // the harness's prices: times the tokens the CLI reported
)

func (c Config) validatePrices(key string) error {
	if len(c.Prices) == 0 {
		return nil
	}
	if reportsCost(c.Format()) {
		return fieldErr(key+".prices", "%s reports its own cost, so prices would never be read; remove prices", c.Adapter)
	}
	for _, m := range sortedKeys(c.Prices) {
		k := key + ".prices." + m
		if !modelName.MatchString(m) {
			return fieldErr(k, "%q is not a model name (letters, digits and . _ : @ / [ ] -)", m)
		}
		p := c.Prices[m]
		if p.Input == nil || p.Output == nil {
			return fieldErr(k, "give input and output, in US dollars per million tokens (e.g. {input: 1.25, output: 10})")
		}
		for name, v := range map[string]*float64{"input": p.Input, "output": p.Output, "cachedInput": p.CachedInput, "cacheWrite": p.CacheWrite} {
			if v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
				return fieldErr(k+"."+name, "%v is not a price; give US dollars per million tokens, 0 or more", *v)
			}
		}
	}
	return nil
}

// reportsCost says whether a format carries the CLI's own cost.
func reportsCost(format string) bool {
	return format == OutputStreamJSON || format == OutputOpencode
}

// cost prices one model's tokens.
func (p Price) cost(t Tokens) float64 {
	rate := func(v *float64, fallback *float64) float64 {
		if v != nil {
			return *v
		}
		return *fallback
	}
	return (float64(t.Input)*(*p.Input) + float64(t.Output)*(*p.Output) +
		float64(t.CacheRead)*rate(p.CachedInput, p.Input) + float64(t.CacheWrite)*rate(p.CacheWrite, p.Input)) / 1e6
}

// Estimate fills in u's cost from prices when the CLI reported none:
// every model that used tokens must have a price (the CLI's own
// breakdown, else model, the model the session was launched with). It
// reports why the cost stays unknown otherwise ("" when it is known).
func Estimate(u *Usage, prices map[string]Price, model string) string {
	if u.Cost == CostReported {
		return ""
	}
	byModel := u.Models
	if len(byModel) == 0 {
		if u.Tokens() == 0 {
			if u.Final { // its closing figures say it used nothing
				u.CostUSD, u.Cost = 0, CostEstimated
				return ""
			}
			return "the harness reported no cost and no tokens"
		}
		if model == "" {
			return "the harness reports no cost and no model was named, so its prices cannot be applied"
		}
		byModel = map[string]Tokens{model: u.tokens()}
	}
	total := 0.0
	for _, m := range sortedKeys(byModel) {
		p, ok := prices[m]
		if !ok {
			return fmt.Sprintf("the harness reports no cost and prices has no entry for model %s", m)
		}
		total += p.cost(byModel[m])
	}
	u.CostUSD, u.Cost = total, CostEstimated
	return ""
}

// Measure says which figures a harness's sessions report for a model, and
// why one is missing.
type Measure struct {
	Turns, Tokens, Cost bool
	// Why says what is missing and the fix ("" when all are measured).
	Why string
}

// Measures says which figures harness name's sessions on model (the model
// in effect: EffectiveModel) are measured by.
func Measures(name string, c Config, model string) Measure {
	switch f := c.Format(); {
	case f == OutputText:
		return Measure{Why: fmt.Sprintf("harness %s prints text, so no figure of its sessions is read (set harnesses.%s.output to what it prints)", name, name)}
	case reportsCost(f):
		return Measure{Turns: true, Tokens: true, Cost: true}
	case model == "":
		return Measure{Turns: true, Tokens: true, Why: fmt.Sprintf("%s reports no cost and no model is named, so harness %s's prices cannot be applied (name a model in harnesses.%s.model)", c.Adapter, name, name)}
	}
	if _, ok := c.Prices[model]; !ok {
		return Measure{Turns: true, Tokens: true, Why: fmt.Sprintf("%s reports no cost and harness %s has no price for model %s (add harnesses.%s.prices.%s)", c.Adapter, name, model, name, model)}
	}
	return Measure{Turns: true, Tokens: true, Cost: true}
}

// EffectiveModel is the model a session of harness c runs when the item
// chose chosen ("" = the CLI's own default): the choice when the harness
// takes it, else the harness's model.
func EffectiveModel(c Config, chosen string) string {
	if chosen != "" && (len(c.Models) == 0 || contains(c.Models, chosen)) {
		return chosen
	}
	return c.Model
}
