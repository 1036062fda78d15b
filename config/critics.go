package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/internal/envvar"
	"github.com/the-loop/the-loop/internal/lazyre"
)

// Defaults applied by CriticPolicy.ApplyDefaults.
const (
	DefaultCriticTimeoutSeconds = 600
	DefaultCriticMaxOutputBytes = 256 << 10
	// DefaultRoundCap is the number of review rounds run before the human
	// reviewer when reviews: leaves it out.
	DefaultRoundCap = 3
	// MaxCriticOutputLimit is the largest maxOutputBytes accepted.
	MaxCriticOutputLimit = 16 << 20
)

// DefaultCriticVersionArgs is the probe run when a critic leaves
// versionArgs out.
var DefaultCriticVersionArgs = []string{"--version"}

// Placeholders a critic's command may carry, spelled as the harnesses'
// argv templates spell them. Each is replaced inside any argument; braces
// that are not a {name} placeholder (a JSON argument) are kept as they
// are. The argv is never handed to a shell.
const (
	// PlaceholderPromptFile becomes the absolute path of the prompt file.
	PlaceholderPromptFile = "{prompt_file}"
	// PlaceholderPrompt becomes the prompt's text as one argument.
	PlaceholderPrompt = "{prompt}"
	// PlaceholderWorkdir becomes the absolute working directory.
	PlaceholderWorkdir = "{workdir}"
)

// CriticPolicy is the operator's critic policy, the top-level critics: and
// reviews: keys: the critics that exist and how many review rounds run
// before a human is asked. Package critic (agents/critic) runs them.
type CriticPolicy struct {
	Critics []Critic `yaml:"critics"`
	Reviews Reviews  `yaml:"reviews"`
}

// Critic is one configured reviewer: another harness or model that reads
// the work and prints findings.
type Critic struct {
	// Name is how rounds, runs and commands refer to it (lower-case
	// letters, digits, '.', '_' and '-').
	Name string `yaml:"name"`
	// Command is the argv run for a round, never through a shell. It may
	// carry {prompt_file}, {prompt} and {workdir}; without {prompt_file} or
	// {prompt} the prompt is fed on standard input.
	Command []string `yaml:"command"`
	// TimeoutSeconds bounds one round (default 600); a round that runs
	// longer is stopped and recorded unavailable.
	TimeoutSeconds int `yaml:"timeoutSeconds"`
	// Env names the variables passed from the loop's environment besides
	// the basics (PATH, HOME, locale, …). A name that looks like it holds a
	// secret is refused: a critic signs in through its own login.
	Env []string `yaml:"env"`
	// VersionArgs are the arguments of the probe `critic list` runs
	// (default [--version]); an explicit [] skips the probe.
	VersionArgs []string `yaml:"versionArgs"`
	// MaxOutputBytes bounds the output kept from one round (default
	// 256 KiB): the end of the output is kept, the rest reported truncated.
	MaxOutputBytes int `yaml:"maxOutputBytes"`
}

// Reviews caps the review rounds run before the human reviewer.
type Reviews struct {
	// SelfReviewCount caps the self-review rounds (default 3).
	SelfReviewCount int `yaml:"selfReviewCount" json:"selfReviewCount"`
	// CriticReviewCount caps the critic rounds (default 3).
	CriticReviewCount int `yaml:"criticReviewCount" json:"criticReviewCount"`
}

var (
	criticNameRE = lazyre.New(`^[a-z0-9][a-z0-9._-]{0,62}$`)
)

// Validate refuses a configuration the loop could not run safely, naming
// the first bad field and the fix.
func (c *CriticPolicy) Validate() error {
	seen := map[string]int{}
	for i := range c.Critics {
		cr := &c.Critics[i]
		if err := cr.validate(fmt.Sprintf("critics[%d]", i)); err != nil {
			return err
		}
		if j, dup := seen[cr.Name]; dup {
			return badKey(fmt.Sprintf("critics[%d].name", i), "%q is already the name of critics[%d]; give each critic its own name", cr.Name, j)
		}
		seen[cr.Name] = i
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"reviews.selfReviewCount", c.Reviews.SelfReviewCount}, {"reviews.criticReviewCount", c.Reviews.CriticReviewCount}} {
		if n.v < 0 {
			return badKey(n.key, "%d is negative; give the number of rounds (1 or more), or leave it out for %d", n.v, DefaultRoundCap)
		}
	}
	return nil
}

// ApplyDefaults fills what the operator left out.
func (c *CriticPolicy) ApplyDefaults() {
	for i := range c.Critics {
		c.Critics[i].applyDefaults()
	}
	if c.Reviews.SelfReviewCount == 0 {
		c.Reviews.SelfReviewCount = DefaultRoundCap
	}
	if c.Reviews.CriticReviewCount == 0 {
		c.Reviews.CriticReviewCount = DefaultRoundCap
	}
}

// Find returns the critic called name.
func (c *CriticPolicy) Find(name string) (Critic, bool) {
	for _, cr := range c.Critics {
		if cr.Name == name {
			return cr, true
		}
	}
	return Critic{}, false
}

// Names returns the configured critic names in order.
func (c *CriticPolicy) Names() []string {
	out := make([]string, len(c.Critics))
	for i, cr := range c.Critics {
		out[i] = cr.Name
	}
	return out
}

func (c *Critic) applyDefaults() {
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = DefaultCriticTimeoutSeconds
	}
	if c.MaxOutputBytes == 0 {
		c.MaxOutputBytes = DefaultCriticMaxOutputBytes
	}
	if c.VersionArgs == nil {
		c.VersionArgs = append([]string(nil), DefaultCriticVersionArgs...)
	}
}

// Validate checks one critic on its own; key prefixes the field names in
// the error ("" reads as "critic").
func (c *Critic) Validate() error { return c.validate("critic") }

func (c *Critic) validate(key string) error {
	if !criticNameRE().MatchString(c.Name) {
		if c.Name == "" {
			return badKey(key+".name", "is empty; name the critic, e.g. codex")
		}
		return badKey(key+".name", "%q is not a critic name; use lower-case letters, digits, '.', '_' and '-' (at most 63), e.g. codex", c.Name)
	}
	if len(c.Command) == 0 || strings.TrimSpace(c.Command[0]) == "" {
		return badKey(key+".command", "is empty; give the program and its arguments as a list, e.g. [codex, exec, --sandbox, read-only, -]")
	}
	if strings.ContainsAny(c.Command[0], "{}") {
		return badKey(key+".command[0]", "is the program to run and cannot be a placeholder; name the executable, e.g. codex")
	}
	if strings.Contains(c.Command[0], "/") && !filepath.IsAbs(c.Command[0]) {
		return badKey(key+".command[0]", "%q is a relative path, which would run a program from the work item's tree; give an absolute path or a bare name found on PATH", c.Command[0])
	}
	prompts := 0
	for i, a := range c.Command {
		for _, ph := range Placeholder.FindAllString(a, -1) {
			switch ph {
			case PlaceholderPromptFile, PlaceholderPrompt:
				prompts++
			case PlaceholderWorkdir:
			default:
				return badKey(fmt.Sprintf("%s.command[%d]", key, i), "unknown placeholder %s; use %s, %s or %s", ph, PlaceholderPromptFile, PlaceholderPrompt, PlaceholderWorkdir)
			}
		}
	}
	if prompts > 1 {
		return badKey(key+".command", "passes the prompt %d times; use %s or %s once, or neither to feed it on standard input", prompts, PlaceholderPromptFile, PlaceholderPrompt)
	}
	if c.TimeoutSeconds < 0 {
		return badKey(key+".timeoutSeconds", "%d is negative; give the seconds one round may take, or leave it out for %d", c.TimeoutSeconds, DefaultCriticTimeoutSeconds)
	}
	if c.MaxOutputBytes < 0 || c.MaxOutputBytes > MaxCriticOutputLimit {
		return badKey(key+".maxOutputBytes", "%d is out of range; give 1 to %d, or leave it out for %d", c.MaxOutputBytes, MaxCriticOutputLimit, DefaultCriticMaxOutputBytes)
	}
	for i, n := range c.Env {
		k := fmt.Sprintf("%s.env[%d]", key, i)
		switch {
		case !envNameRE().MatchString(n):
			return badKey(k, "is not an environment variable name (letters, digits and _, not starting with a digit); name the variable to pass, e.g. CODEX_HOME")
		case envvar.LooksSecret(n):
			return badKey(k, "%s looks like it holds a secret, and a critic never gets one from the loop; sign the critic in through its own login (e.g. `codex login`) and remove it from env", n)
		}
	}
	for i, a := range c.VersionArgs {
		if Placeholder.MatchString(a) {
			return badKey(fmt.Sprintf("%s.versionArgs[%d]", key, i), "the version probe gets no prompt or working tree; remove the placeholder")
		}
	}
	return nil
}

// RoundTimeoutSeconds is the bound of one round (the default when left
// out).
func (c *Critic) RoundTimeoutSeconds() int {
	if c.TimeoutSeconds > 0 {
		return c.TimeoutSeconds
	}
	return DefaultCriticTimeoutSeconds
}

// OutputLimit is the most output kept from one round (the default when
// left out).
func (c *Critic) OutputLimit() int {
	if c.MaxOutputBytes > 0 {
		return c.MaxOutputBytes
	}
	return DefaultCriticMaxOutputBytes
}
