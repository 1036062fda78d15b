package critic

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/proc"
)

// Status says whether one configured critic can run here.
type Status struct {
	// Name is the configured name.
	Name string `json:"name"`
	// Command is the configured argv.
	Command []string `json:"command"`
	// Path is the executable found ("" when none was).
	Path string `json:"path"`
	// Version is the first line the version probe printed.
	Version string `json:"version"`
	// Available reports that the executable was found and its probe
	// succeeded (or was turned off with versionArgs: []).
	Available bool `json:"available"`
	// Unavailable says why not; empty when Available.
	Unavailable string `json:"unavailable"`
}

// List reports, in configuration order, which critics exist and can run:
// the executable is found and its version probe exits 0 within
// ProbeTimeout. Probes run concurrently, each bounded.
func (r *Runner) List(ctx context.Context, critics []Critic) []Status {
	out := make([]Status, len(critics))
	var wg sync.WaitGroup
	for i, c := range critics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = r.status(ctx, c)
		}()
	}
	wg.Wait()
	return out
}

func (r *Runner) status(ctx context.Context, c Critic) Status {
	st := Status{Name: c.Name, Command: append([]string(nil), c.Command...)}
	if err := c.Validate(); err != nil {
		st.Unavailable = "not runnable as configured: " + err.Error()
		return st
	}
	env, err := r.env(c)
	if err != nil {
		st.Unavailable = "not runnable as configured: " + err.Error()
		return st
	}
	path, err := resolve(c.Command[0], env)
	if err != nil {
		st.Unavailable = err.Error()
		return st
	}
	st.Path = path
	if c.VersionArgs != nil && len(c.VersionArgs) == 0 {
		st.Available = true
		return st
	}
	args := c.VersionArgs
	if args == nil {
		args = config.DefaultCriticVersionArgs
	}
	probe := append([]string{path}, args...)
	shown := strings.Join(append([]string{c.Command[0]}, args...), " ")
	timeout := r.probeTimeout()
	res, err := proc.Run(ctx, proc.Command{Argv: probe, Dir: os.TempDir(), Env: env.List(), Timeout: timeout, Grace: time.Second, MaxOutput: 4 << 10})
	secrets := r.secrets()
	switch {
	case res.TimedOut || errors.Is(err, proc.ErrTimeout):
		st.Unavailable = fmt.Sprintf("version probe `%s` did not finish within %s", shown, timeout)
	case err != nil:
		st.Unavailable = fmt.Sprintf("version probe `%s` could not run: %s", shown, proc.RedactText(err.Error(), secrets))
	case !res.Status.Success():
		st.Unavailable = fmt.Sprintf("version probe `%s` ended with %s", shown, res.Status)
		if l := lastLine(clean(res.Stderr, secrets)); l != "" {
			st.Unavailable += ": " + l
		}
	default:
		st.Available = true
		st.Version = firstLine(clean(res.Stdout, secrets))
		if st.Version == "" {
			st.Version = firstLine(clean(res.Stderr, secrets))
		}
	}
	return st
}

func (r *Runner) probeTimeout() time.Duration {
	if r.ProbeTimeout > 0 {
		return r.ProbeTimeout
	}
	return 10 * time.Second
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return cut(l, 200)
		}
	}
	return ""
}
