package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkLaunch measures what confinement adds to a session's launch: a
// harness (/bin/true) started and reaped directly — the floor — against the
// same harness through the launcher with every layer this host gives. The
// launcher is this test binary, or the program THE_LOOP_BENCH_EXE names
// (bench/sandbox.sh passes the-loop itself).
//
//	go test -run '^$' -bench Launch -benchtime 20x ./agents/sandbox
func BenchmarkLaunch(b *testing.B) {
	b.Run("unconfined", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("confined", func(b *testing.B) {
		r := newBenchRig(b)
		exe, _ := os.Executable()
		if e := os.Getenv("THE_LOOP_BENCH_EXE"); e != "" {
			exe = e
		}
		c := Config{}
		if os.Geteuid() == 0 {
			c.User = "65534"
		}
		cf := NewConfiner(c, Options{Exe: exe, Protected: []string{r.secretDir}})
		if err := cf.Refusal(); err != nil {
			b.Skipf("this host cannot confine a session: %v", err)
		}
		p := cf.Policy(Session{Workdir: r.work, Home: r.home, Tmp: r.tmp})
		if a := cf.Account(); a != nil {
			if err := Own(*a, r.home, r.tmp); err != nil {
				b.Fatal(err)
			}
		}
		policy := filepath.Join(r.base, "policy.json")
		if err := WritePolicy(policy, p); err != nil {
			b.Fatal(err)
		}
		argv := cf.Wrap(policy, []string{"/bin/true"})
		for b.Loop() {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			cmd.SysProcAttr = Attr(p)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}

func newBenchRig(b *testing.B) rig {
	base, err := os.MkdirTemp("", "the-loop-sandbox-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(base) })
	_ = os.Chmod(base, 0o711)
	r := rig{base: base, work: filepath.Join(base, "work"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"), secretDir: filepath.Join(base, "secret")}
	for _, d := range []string{r.work, r.home, r.tmp, r.secretDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return r
}
