package workspace

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/internal/gitsafe"
	"github.com/the-loop/the-loop/internal/proc"
)

// Progress reads what a session left in its working tree: the commit the
// tree stands on, and how many commits of the agent's own (the loop's
// marked commits aside) lie between an earlier commit and it. The session
// supervisor asks it, to tell a session that changed nothing.
type Progress struct {
	// Git is the git program (default "git"); Env its complete environment
	// (default: proc.Basics from the poller's environment).
	Git string
	Env []string
}

// Head is the commit dir's tree stands on.
func (p Progress) Head(ctx context.Context, dir string) (string, error) {
	out, err := p.git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("the head of %s: %w", dir, err)
	}
	return out, nil
}

// AgentCommits counts the commits between since and dir's head that do not
// carry the loop's trailer (MarkTrailer): the ones a session made.
func (p Progress) AgentCommits(ctx context.Context, dir, since string) (int, error) {
	out, err := p.git(ctx, dir, "rev-list", "--count", "--invert-grep", "--grep=^"+MarkTrailer+": ", since+"..HEAD")
	if err != nil {
		return 0, fmt.Errorf("the commits of %s since %s: %w", dir, short(since), err)
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, fmt.Errorf("the commits of %s since %s: git said %q", dir, short(since), out)
	}
	return n, nil
}

func (p Progress) git(ctx context.Context, dir string, args ...string) (string, error) {
	program := p.Git
	if program == "" {
		program = "git"
	}
	env := p.Env
	if env == nil {
		e, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
		if err != nil {
			return "", err
		}
		env = e.List()
	}
	// In a tree the loop made, git is pinned to the tree's own repository:
	// nothing the session wrote in its .git steers it (internal/gitsafe).
	pin := gitsafe.Open(dir)
	env = append(withoutVars(pin.Environ(env), "LC_ALL", "GIT_TERMINAL_PROMPT"), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	argv := append([]string{program}, pin.Args(args...)...)
	res, err := proc.Run(ctx, proc.Command{Argv: argv, Env: env, Timeout: gitTimeout, MaxOutput: 4 << 10})
	if err != nil {
		return "", err
	}
	if !res.Status.Success() {
		return "", fmt.Errorf("git %s: %s: %s", args[0], res.Status, lastLines(string(res.Stderr), 3))
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}
