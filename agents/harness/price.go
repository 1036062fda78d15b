package harness

import "fmt"

// Cost sources: where a session's cost figure came from. A session with
// neither has an unknown cost (""), never 0.
const (
	CostReported  = "reported"  // the CLI said
	CostEstimated = "estimated" // the harness's prices: times the tokens the CLI reported
)

// cost prices one model's tokens.
func cost(p Price, t Tokens) float64 {
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
		total += cost(p, byModel[m])
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
	switch {
	case c.Format() == OutputText:
		return Measure{Why: fmt.Sprintf("harness %s prints text, so no figure of its sessions is read (set harnesses.%s.output to what it prints)", name, name)}
	case c.ReportsCost():
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
