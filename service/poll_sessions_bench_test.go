package service

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// actingRig is a poller over n watched issues of the fake GitHub, with a
// real checkout and bare remote, a real store and — when acting — the
// session supervisor and the working trees, its harness the fake harness
// scripted to keep working at requirements-definition.
type actingRig struct {
	fake   *providertest.Server
	poller *Poller
	sup    *sessions.Supervisor
	fakeSt string
	n      int
}

func benchGit(b *testing.B, env []string, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v: %s", args, err, out)
	}
}

func newActingRig(b *testing.B, n, live int, acting bool) *actingRig {
	b.Helper()
	fake := providertest.NewGitHub(b)
	fake.SetQuota(1<<30, time.Hour)
	for i := 1; i < n; i++ {
		fake.SeedIssue(fmt.Sprintf("watched %d", i), nil, true)
	}
	base, err := os.MkdirTemp("", "tl-bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(base) })
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1"}
	remote, seed, checkout := filepath.Join(base, "remote.git"), filepath.Join(base, "seed"), filepath.Join(base, "checkout")
	benchGit(b, env, base, "init", "--quiet", "--bare", "--initial-branch=main", remote)
	benchGit(b, env, base, "clone", "--quiet", remote, seed)
	writeFile(b, filepath.Join(seed, ".the-loop", "harness-config.yaml"), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n")
	benchGit(b, env, seed, "add", "-A")
	benchGit(b, env, seed, "commit", "--quiet", "-m", "seed")
	benchGit(b, env, seed, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	benchGit(b, env, base, "clone", "--quiet", remote, checkout)

	cfg := config.Default()
	cfg.Routing.AuthorizedUsers, cfg.Routing.SelfLogins = []string{"alice"}, []string{fake.BotLogin()}
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: checkout}}
	prov, err := github.New(github.Options{BaseURL: fake.URL(), Token: fake.Token()})
	if err != nil {
		b.Fatal(err)
	}
	db := store.NewHandle(filepath.Join(base, "state.db"))
	deps := Deps{Store: db, Signer: runtime.NewSigner([]byte("bench-key")),
		Providers: func(string) (integrations.Provider, error) { return prov, nil }}
	r := &actingRig{fake: fake, n: n, fakeSt: filepath.Join(base, "fake")}
	if acting {
		script := filepath.Join(base, "script")
		writeFile(b, filepath.Join(script, "requirements-definition", "fake"), "hang-runs=999\n")
		_ = os.MkdirAll(r.fakeSt, 0o700)
		cfg.Harnesses = map[string]harness.Config{"agent": {Adapter: harness.AdapterCommand, Output: harness.OutputStreamJSON, Argv: []string{
			testbin.Build(b, "github.com/the-loop/the-loop/agents/harness/fakeharness"), "--prompt-file", "{prompt_file}", "--work-item", "{work_item}",
			"--workdir", "{workdir}", "--state", r.fakeSt, "--script", script}}}
		cfg.Sessions.Max = live
		sup, err := sessions.New(cfg.Sessions.SessionLimits, sessions.Deps{Store: HandleRecorder(db), Harnesses: cfg.Harnesses,
			Serve: []string{"/nonexistent/the-loop", "serve"}, StateDir: filepath.Join(base, "state"), Environ: env,
			Lookup: func(k string) (string, bool) {
				for _, kv := range env {
					if name, v, _ := strings.Cut(kv, "="); name == k {
						return v, true
					}
				}
				return "", false
			}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = sup.Shutdown(ctx)
		})
		r.sup = sup
		deps.Sessions = sup
		deps.Trees = NewTrees(filepath.Join(base, "trees"), workspace.Options{Env: env, Identity: workspace.Identity{Name: "the-loop", Email: "loop@example.invalid"}})
	}
	svc := testService(b, cfg, deps)
	r.poller = &Poller{Svc: svc, Sources: cfg.Polling.Sources}
	return r
}

func (r *actingRig) ref(i int) integrations.Ref {
	return integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: i}
}

func (r *actingRig) cycle(b *testing.B) CycleReport {
	rep := r.poller.RunOnce(context.Background())
	for _, s := range rep.Sources {
		if s.Error != "" {
			b.Fatal(s.Error)
		}
	}
	return rep
}

// arm arms the first armed issues and signs the selection of the first
// live ones.
func (r *actingRig) arm(b *testing.B, armed, live int) {
	b.Helper()
	for i := 1; i <= armed; i++ {
		r.fake.AddComment(r.ref(i), "alice", "OWNER", "the-loop start")
	}
	r.cycle(b)
	for i := 1; i <= live; i++ {
		r.fake.AddComment(r.ref(i), "alice", "OWNER", "- [ ] brainstorming\n\nthe-loop execute")
	}
	r.cycle(b)
	if r.sup == nil {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(r.sup.Live()) < live {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d sessions live", len(r.sup.Live()), live)
		}
		r.cycle(b)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPollerOverhead is one steady-state poll cycle over 100 watched
// issues, 20 of them armed and standing on an agent node. "acting" runs the
// session step and the working trees with 20 live sessions (real
// fake-harness processes); "floor" is the same cycle without them (the
// poller as it was: gates only), measured in the same run. bench/loop.sh
// prints the ratios.
func BenchmarkPollerOverhead(b *testing.B) {
	for _, mode := range []string{"floor", "acting"} {
		b.Run(mode, func(b *testing.B) {
			r := newActingRig(b, 100, 20, mode == "acting")
			r.arm(b, 20, 20)
			r.cycle(b)
			b.ReportAllocs()
			cpu := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				r.cycle(b)
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkReplyToSessionStart is the time from an authorized reply
// becoming visible (the cycle that lists it) to the session's process
// start (the fake harness has written its pid), with 10 watched items.
// The floor is an idle cycle over the same items, measured in the same run;
// the target is one poll interval (the wait for the next cycle) plus 1 s.
func BenchmarkReplyToSessionStart(b *testing.B) {
	b.Run("floor", func(b *testing.B) {
		r := newActingRig(b, 10, 10, true)
		r.arm(b, r.n, 0)
		r.cycle(b)
		for b.Loop() {
			r.cycle(b)
		}
	})
	b.Run("reply", func(b *testing.B) {
		r := newActingRig(b, 10, 10, true)
		r.arm(b, r.n, 0)
		r.cycle(b)
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			if i > r.n {
				b.Fatalf("more iterations than watched items; use -benchtime %dx or fewer", r.n)
			}
			r.fake.AddComment(r.ref(i), "alice", "OWNER", "- [ ] brainstorming\n\nthe-loop execute")
			pid := filepath.Join(r.fakeSt, fmt.Sprintf("issue-%d.run-1.pid", i))
			b.StartTimer()
			r.cycle(b)
			for {
				if _, err := os.Stat(pid); err == nil {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	})
}
