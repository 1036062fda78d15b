package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
)

// probeResult is what `sandbox-exec --probe` reports.
type probeResult struct {
	PID1 bool `json:"pid1"`
	ABI  int  `json:"abi"`
}

// Modes of sessions.confinement (config.ConfinementAuto, ConfinementNone).
const (
	// ModeAuto confines every session with every layer the host offers and
	// refuses to launch one when a required layer is missing: the PID
	// namespace and Landlock always, and the session's own account when the
	// poller runs as root.
	ModeAuto = config.ConfinementAuto
	// ModeNone launches sessions unconfined, as the poller's user: the
	// operator's explicit opt-out, warned about at start-up and in graph
	// status.
	ModeNone = config.ConfinementNone
)

// Config is the operator's choice, part of the `sessions:` block.
type Config = config.SessionConfinement

// Paths are extra paths every confined session reads or writes.
type Paths = config.SandboxPaths

// Account is the sessions' own Unix account.
type Account struct {
	Name     string
	UID, GID int
}

// LookupAccount resolves a user name or UID[:GID] (a bare UID takes its
// group from the user database when it is there, else GID = UID).
func LookupAccount(spec string) (Account, error) {
	uidStr, gidStr, hasGID := strings.Cut(spec, ":")
	if uid, err := strconv.Atoi(uidStr); err == nil {
		a := Account{Name: uidStr, UID: uid, GID: uid}
		if u, err := user.LookupId(uidStr); err == nil {
			a.Name = u.Username
			a.GID, _ = strconv.Atoi(u.Gid)
		}
		if hasGID {
			if a.GID, err = strconv.Atoi(gidStr); err != nil {
				return a, fmt.Errorf("sessions.user: %q: the group after ':' must be a number", spec)
			}
		}
		return a, checkAccount(a)
	}
	if hasGID {
		return Account{}, fmt.Errorf("sessions.user: %q: give a user name, or UID[:GID]", spec)
	}
	u, err := user.Lookup(spec)
	if err != nil {
		return Account{}, fmt.Errorf("sessions.user: %q is not an account on this host; create it (useradd --system --no-create-home %s) or name another", spec, spec)
	}
	a := Account{Name: u.Username}
	a.UID, _ = strconv.Atoi(u.Uid)
	a.GID, _ = strconv.Atoi(u.Gid)
	return a, checkAccount(a)
}

func checkAccount(a Account) error {
	if a.UID <= 0 || a.GID <= 0 {
		return fmt.Errorf("sessions.user: %s is root (uid %d, gid %d); sessions need an account of their own", a.Name, a.UID, a.GID)
	}
	return nil
}

// Missing is a layer this host cannot give, and why.
type Missing struct {
	Layer string `json:"layer"`
	Why   string `json:"why"`
}

func (m Missing) String() string { return m.Layer + ": " + m.Why }

// Confiner decides how sessions are confined on this host: the layers it
// applies, the ones missing, and — under auto with a required layer
// missing — the refusal every launch gets.
type Confiner struct {
	mode      string
	exe       string
	launcher  string
	account   *Account
	layers    []string
	abi       int
	missing   []Missing
	refusal   error
	extra     Paths
	protected []string
}

// Options are what NewConfiner needs besides the config.
type Options struct {
	// Exe is the-loop's program: the sessions' server, and the launcher
	// when Launcher is "".
	Exe string
	// Launcher is the launcher program (the-loop-sandbox beside the-loop;
	// "" = Exe sandbox-exec).
	Launcher string
	// Protected are the paths no session may ever reach: the config, the
	// signing key, the store, the state directory, the credentials.
	Protected []string
	// Root says the poller runs as root (nil: os.Geteuid() == 0).
	Root *bool
}

// NewConfiner probes the host for c. It never fails: a host that cannot
// give what c requires yields a Confiner whose Refusal says why.
func NewConfiner(c Config, o Options) *Confiner {
	cf := &Confiner{mode: c.Confinement, exe: o.Exe, launcher: o.Launcher, extra: c.Sandbox, protected: o.Protected}
	if cf.launcher == "" {
		cf.launcher = o.Exe
	}
	if cf.mode == "" {
		cf.mode = ModeAuto
	}
	if cf.mode == ModeNone {
		return cf
	}
	root := os.Geteuid() == 0
	if o.Root != nil {
		root = *o.Root
	}
	var required []Missing
	switch {
	case c.User == "" && root:
		required = append(required, Missing{LayerUser, "the poller runs as root and sessions.user names no account for the sessions; create one (useradd --system the-loop-session) and set sessions.user"})
	case c.User != "" && !root:
		required = append(required, Missing{LayerUser, fmt.Sprintf("sessions.user is set but the poller runs as uid %d, not root, so it cannot switch accounts; run it as root or remove sessions.user", os.Geteuid())})
	case c.User != "":
		a, err := LookupAccount(c.User)
		if err != nil {
			required = append(required, Missing{LayerUser, err.Error()})
		} else {
			cf.account = &a
			cf.layers = append(cf.layers, LayerUser)
		}
	default:
		cf.missing = append(cf.missing, Missing{LayerUser, "the poller does not run as root, so sessions run as its user (uid " + strconv.Itoa(os.Geteuid()) + "); the other layers keep them from its files and processes"})
	}
	cf.abi = landlockABI()
	if cf.abi < 1 {
		required = append(required, Missing{LayerLandlock, "the kernel offers no Landlock (needs Linux 5.13 or newer with landlock in lsm=)"})
	}
	if err := cf.probePID(); err != nil {
		required = append(required, Missing{LayerPID, err.Error()})
	} else {
		cf.layers = append(cf.layers, LayerPID)
	}
	if cf.abi >= 1 {
		cf.layers = append(cf.layers, LayerLandlock)
	}
	if len(required) > 0 {
		cf.missing = append(cf.missing, required...)
		parts := make([]string, len(required))
		for i, m := range required {
			parts[i] = m.String()
		}
		cf.refusal = fmt.Errorf("sessions.confinement: auto cannot confine a session on this host (%s); no session is launched until it can — fix the host, or opt out with sessions.confinement: none (sessions then run as the poller's user and can read what it reads)",
			strings.Join(parts, "; "))
	}
	return cf
}

// probePID starts the launcher in a PID namespace of its own, as a session
// would be, and checks that it came up as PID 1 with a fresh /proc.
func (c *Confiner) probePID() error {
	if c.launcher == "" {
		return fmt.Errorf("no launcher program to probe with")
	}
	dir, err := os.MkdirTemp("", "the-loop-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p := Policy{Layers: []string{LayerPID}, Workdir: dir}
	path := filepath.Join(dir, "policy.json")
	if err := WritePolicy(path, p); err != nil {
		return err
	}
	cmd := exec.Command(c.launcher, "sandbox-exec", "--probe", "--policy", path)
	cmd.Env = []string{}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("a private PID namespace could not be created: %v", err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		err = fmt.Errorf("the probe did not answer within 10s")
	}
	if err != nil {
		why := strings.TrimSpace(errb.String())
		if why == "" {
			why = err.Error()
		}
		return fmt.Errorf("a private PID namespace with a fresh /proc could not be made: %s", why)
	}
	var res probeResult
	if json.Unmarshal(out.Bytes(), &res) != nil || !res.PID1 {
		return fmt.Errorf("the launcher did not come up as PID 1 of a namespace of its own")
	}
	return nil
}

// Mode is auto or none.
func (c *Confiner) Mode() string {
	if c == nil {
		return ModeNone
	}
	return c.mode
}

// Active reports whether sessions are launched through the sandbox.
func (c *Confiner) Active() bool { return c != nil && c.mode != ModeNone && c.refusal == nil }

// Refusal is why no session may be launched (nil: they may).
func (c *Confiner) Refusal() error {
	if c == nil {
		return nil
	}
	return c.refusal
}

// Missing are the layers this host does not give.
func (c *Confiner) Missing() []Missing {
	if c == nil {
		return nil
	}
	return append([]Missing(nil), c.missing...)
}

// Account is the sessions' own account (nil: they run as the poller's).
func (c *Confiner) Account() *Account {
	if c == nil {
		return nil
	}
	return c.account
}

// Summary says in one line how sessions are confined, as sessions list,
// graph status and the start-up line show it.
func (c *Confiner) Summary() string {
	if c == nil || c.mode == ModeNone {
		return "none (sessions.confinement: none): a session runs as the poller's user and can read what it reads"
	}
	if c.refusal != nil {
		return "refused: " + c.refusal.Error()
	}
	parts := []string{}
	for _, l := range c.layers {
		switch l {
		case LayerUser:
			parts = append(parts, fmt.Sprintf("account %s (uid %d)", c.account.Name, c.account.UID))
		case LayerPID:
			parts = append(parts, "private PID namespace")
		case LayerLandlock:
			parts = append(parts, fmt.Sprintf("Landlock ABI %d", c.abi))
		}
	}
	s := strings.Join(parts, ", ")
	for _, m := range c.missing {
		s += "; missing " + m.String()
	}
	return s
}

// Layers is the short form recorded with each session, e.g.
// "user,pid,landlock" ("none" when unconfined).
func (c *Confiner) Layers() string {
	if !c.Active() {
		return ModeNone
	}
	return strings.Join(c.layers, ",")
}

// Session is what one confined launch needs.
type Session struct {
	// Workdir is the working tree; Home and Tmp its private directories.
	Workdir, Home, Tmp string
	// Writable and ReadOnly are further paths (the tree's git directories,
	// the harness's needs).
	Writable, ReadOnly []string
	// Programs are executables the session runs (the harness, the-loop):
	// each is granted read-only with the directory holding it.
	Programs []string
}

// Policy is the policy of one session.
func (c *Confiner) Policy(s Session) Policy {
	p := Policy{Layers: append([]string(nil), c.layers...), Workdir: s.Workdir, Protected: c.protected}
	if c.account != nil {
		p.UID, p.GID = c.account.UID, c.account.GID
	}
	p.Writable = append(append(append([]string{}, s.Home, s.Tmp), s.Writable...), c.extra.Writable...)
	p.ReadOnly = append(append(append([]string{}, SystemReadOnly...), s.ReadOnly...), c.extra.ReadOnly...)
	for _, prog := range append([]string{c.exe}, s.Programs...) {
		if prog == "" {
			continue
		}
		p.ReadOnly = append(p.ReadOnly, prog)
		if real, err := filepath.EvalSymlinks(prog); err == nil && real != prog {
			p.ReadOnly = append(p.ReadOnly, filepath.Dir(real))
		}
	}
	return p
}

// Wrap returns argv run through the launcher with the policy at path.
func (c *Confiner) Wrap(policyPath string, argv []string) []string {
	return append([]string{c.launcher, "sandbox-exec", "--policy", policyPath, "--"}, argv...)
}
