package sessions

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sandbox"
	"github.com/the-loop/the-loop/internal/sessionenv"
)

// box is a confined session's own directory, <session>/box: its prompt
// and MCP config, its private home and temp directory, and its socket to
// the poller. The rest of the session's directory (transcript, stderr,
// policy) stays the poller's.
type box struct {
	s                                *Supervisor
	id, dir, root, home, tmp, socket string
}

// openBox makes a confined session's box, opens its socket on the gateway
// and points the launch at them: prompt and MCP config in the box, a
// private HOME and TMPDIR, and a server that forwards over the socket.
func (s *Supervisor) openBox(ctx context.Context, id, dir string, w Want, l *harness.Launch) (*box, error) {
	b := &box{s: s, id: id, dir: dir, root: filepath.Join(dir, "box")}
	b.home, b.tmp, b.socket = filepath.Join(b.root, "home"), filepath.Join(b.root, "tmp"), filepath.Join(b.root, "loop.sock")
	for _, d := range []string{b.home, b.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("session directory: %w", err)
		}
	}
	gitconfig := "[safe]\n\tdirectory = *\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"
	if err := os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte(gitconfig), 0o600); err != nil {
		return nil, fmt.Errorf("session home: %w", err)
	}
	capability, err := s.d.Gateway.Open(ctx, b.socket, Scope{Session: id, Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo})
	if err != nil {
		return nil, err
	}
	l.Dir = b.root
	l.Serve = s.d.ConfinedServe
	l.ServeEnv = map[string]string{sessionenv.Socket: b.socket, sessionenv.Capability: capability}
	l.Env = map[string]string{
		"HOME": b.home, "TMPDIR": b.tmp,
		"XDG_CONFIG_HOME": filepath.Join(b.home, ".config"), "XDG_CACHE_HOME": filepath.Join(b.home, ".cache"),
		"XDG_DATA_HOME": filepath.Join(b.home, ".local", "share"), "XDG_STATE_HOME": filepath.Join(b.home, ".local", "state"),
		sessionenv.Socket: b.socket, sessionenv.Capability: capability,
	}
	return b, nil
}

// sayConfinement logs how sessions are confined: the layers in effect,
// each one missing, the refusal to launch, or the operator's opt-out.
func (s *Supervisor) sayConfinement() {
	conf, log := s.d.Confiner, s.d.Log
	switch {
	case conf == nil:
	case conf.Mode() == sandbox.ModeNone:
		log.Warn("sessions are not confined (sessions.confinement: none): each runs as the poller's user and can read what it reads — the config, the signing key, the store — and leave processes behind; remove confinement: none to confine them")
	case conf.Refusal() != nil:
		log.Error(conf.Refusal().Error())
	default:
		log.Info("sessions are confined", "layers", conf.Layers(), "how", conf.Summary())
		for _, m := range conf.Missing() {
			log.Warn("a layer of session confinement is missing", "layer", m.Layer, "why", m.Why)
		}
	}
}

// close revokes the box's capability.
func (b *box) close() {
	if b != nil {
		b.s.d.Gateway.Close(b.id)
	}
}

// wrap writes the session's policy and runs plan through the launcher
// under it; under the account layer it first gives the account its box
// and shares the tree with it. It returns how the runner starts the
// launcher.
func (b *box) wrap(plan *harness.Plan, w Want) (*syscall.SysProcAttr, error) {
	conf := b.s.d.Confiner
	p := conf.Policy(sandbox.Session{Workdir: plan.Dir, Home: b.home, Tmp: b.tmp, Writable: append([]string{b.root}, w.Writable...), ReadOnly: w.ReadOnly,
		Programs: []string{program(plan.Argv[0], plan.Env)}})
	if err := p.Check(); err != nil {
		return nil, err
	}
	if a := conf.Account(); a != nil {
		for _, d := range append(b.s.searchable(plan.Dir), b.s.d.StateDir, filepath.Join(b.s.d.StateDir, "sessions"), b.dir) {
			if err := letThrough(d); err != nil {
				return nil, err
			}
		}
		for _, path := range []string{plan.Dir, b.root} {
			if err := sandbox.Reachable(*a, path); err != nil {
				return nil, err
			}
		}
		if err := sandbox.Share(a.UID, append([]string{p.Workdir}, p.Writable[3:]...)...); err != nil {
			return nil, err
		}
		if err := sandbox.Own(*a, b.root); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(b.dir, "sandbox.json")
	if err := sandbox.WritePolicy(path, p); err != nil {
		return nil, err
	}
	plan.Argv = conf.Wrap(path, plan.Argv)
	return sandbox.Attr(p), nil
}

// searchable are the directories between one of the poller's own
// directories (OwnDirs, the state directory) and path, the own one
// included.
func (s *Supervisor) searchable(path string) []string {
	var out []string
	for _, root := range append([]string{s.d.StateDir}, s.d.OwnDirs...) {
		root = filepath.Clean(root)
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			continue
		}
		for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
			out = append(out, dir)
			if dir == root || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return out
}

// letThrough adds search (never read) permission for everyone to dir.
func letThrough(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("let the sessions' account through %s: %w", dir, err)
	}
	if m := fi.Mode().Perm(); m&0o011 != 0o011 {
		if err := os.Chmod(dir, m|0o011); err != nil {
			return fmt.Errorf("let the sessions' account through %s: %w", dir, err)
		}
	}
	return nil
}

// program resolves a harness's program as the launcher will, against the
// session's PATH, so the policy can grant it.
func program(prog string, env []string) string {
	if strings.Contains(prog, "/") {
		return prog
	}
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				cand := filepath.Join(dir, prog)
				if fi, err := os.Stat(cand); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return cand
				}
			}
		}
	}
	if p, err := exec.LookPath(prog); err == nil {
		return p
	}
	return ""
}
