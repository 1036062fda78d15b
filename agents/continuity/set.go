package continuity

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Fixed names and limits of the continuity layout and the brief.
const (
	// HandoffDir is the git-ignored directory, relative to the repository
	// root, that holds every continuity artifact.
	HandoffDir = ".handoff"
	// NotesFile, GraphFile and DeathPointFile are the three files of the set.
	NotesFile      = "notes.md"
	GraphFile      = "graph.md"
	DeathPointFile = "death-point.md"
	// RejectedDir, inside the continuity directory, keeps sets that could not
	// be resumed.
	RejectedDir = "rejected"
	// BriefBudget is the largest brief, in bytes of UTF-8.
	BriefBudget = 6144
	// AgeWarning is the source age past which a brief carries a warning.
	AgeWarning = 7 * 24 * time.Hour
	// DefaultStaleAfter is how old a death point may be and still be resumed.
	DefaultStaleAfter = 30 * 24 * time.Hour
	// ContinuationLine is the fixed last line of every brief.
	ContinuationLine = "Continue from this compact context; do not re-derive completed work."
	// CutMarker ends a brief section that was truncated to fit the budget.
	CutMarker = "[cut for handoff budget]"
)

// Set is the continuity record of one repository. Its methods are what the
// CLI and the MCP tools call.
type Set struct {
	// Root is the repository's absolute top-level directory.
	Root string
	// Identity is the canonical repository identity: the normalised origin
	// remote, else the absolute top-level path.
	Identity string
	// Harness names the kind of agent session writing the record.
	Harness string
	// Now is the clock; tests replace it.
	Now func() time.Time
	// StaleAfter is the oldest death point that may still be resumed.
	StaleAfter time.Duration

	// afterEmergency, when set, runs right after the minimal death point is
	// flushed during a fresh start (tests use it to simulate a crash).
	afterEmergency func()
	// afterWriteStep, when set, runs after each step of the three-file
	// write ("pending NAME", "commit", "installed NAME"); tests use it to
	// simulate a crash part-way.
	afterWriteStep func(step string)
	// gitDir is the checkout's git directory, where the lock file lives.
	gitDir string
}

// Open resolves repo (any directory inside a git checkout) to its top level
// and canonical identity. It reads nothing from .handoff/ and writes nothing.
func Open(repo string) (*Set, error) {
	if repo == "" {
		repo = "."
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return nil, fmt.Errorf("continuity: resolve repository directory %q: %w", repo, err)
	}
	out, err := gitOutput(abs, "rev-parse", "--show-toplevel", "--absolute-git-dir")
	top, gitDir, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if err != nil || top == "" {
		if err == nil {
			err = errors.New("git rev-parse printed no top level")
		}
		return nil, fmt.Errorf("continuity: %s is not inside a git repository (run from a checkout or pass --repo DIR): %w", abs, err)
	}
	top = filepath.Clean(top)
	if resolved, err := filepath.EvalSymlinks(top); err == nil {
		top = resolved
	}
	identity := top
	if remote, err := gitOutput(top, "config", "--get", "remote.origin.url"); err == nil && strings.TrimSpace(remote) != "" {
		if id := NormalizeRemote(remote); id != "" {
			identity = id
		}
	}
	return &Set{
		Root:       top,
		Identity:   identity,
		Harness:    "unknown",
		Now:        time.Now,
		StaleAfter: DefaultStaleAfter,
		gitDir:     strings.TrimSpace(gitDir),
	}, nil
}

// Dir is the absolute path of .handoff/continuity/.
func (s *Set) Dir() string { return filepath.Join(s.Root, HandoffDir, "continuity") }

// HandoffsDir is the absolute path of .handoff/handoffs/, where briefs go.
func (s *Set) HandoffsDir() string { return filepath.Join(s.Root, HandoffDir, "handoffs") }

// DeathPointPath is the absolute path of the live death point.
func (s *Set) DeathPointPath() string { return filepath.Join(s.Dir(), DeathPointFile) }

// rel returns path relative to the repository root when it is inside it.
func (s *Set) rel(path string) string {
	r, err := filepath.Rel(s.Root, path)
	if err != nil || strings.HasPrefix(r, "..") {
		return path
	}
	return filepath.ToSlash(r)
}

func (s *Set) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// NormalizeRemote turns a git remote URL into a canonical identity such as
// "github.com/owner/name": scheme, credentials, port and a trailing ".git"
// are dropped and the host is lower-cased, so the https and ssh forms of one
// remote compare equal. A local remote keeps its cleaned path.
func NormalizeRemote(remote string) string {
	remote = strings.TrimSpace(remote)
	if remote == "" {
		return ""
	}
	var host, path string
	switch {
	case strings.Contains(remote, "://"):
		u, err := url.Parse(remote)
		if err != nil {
			return ""
		}
		if u.Scheme == "file" || u.Host == "" {
			return strings.TrimSuffix(filepath.Clean(u.Path), ".git")
		}
		host, path = strings.ToLower(u.Hostname()), u.Path
	case isSCPLike(remote):
		at := strings.LastIndex(remote[:strings.Index(remote, ":")], "@")
		rest := remote[at+1:]
		colon := strings.Index(rest, ":")
		host, path = strings.ToLower(rest[:colon]), rest[colon+1:]
	default:
		return strings.TrimSuffix(filepath.Clean(remote), ".git")
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if path == "" {
		return host
	}
	return host + "/" + path
}

// isSCPLike reports the "user@host:path" remote form: a colon before any
// slash, and not a Windows drive letter.
func isSCPLike(s string) bool {
	colon := strings.Index(s, ":")
	if colon <= 1 {
		return false
	}
	slash := strings.Index(s, "/")
	return slash < 0 || colon < slash
}
