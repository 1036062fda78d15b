package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/runtime"
)

// gitTimeout bounds each git call that reads the trusted keys.
const gitTimeout = 30 * time.Second

// maxKeyFileAtRef bounds the committed key file read from a git ref.
const maxKeyFileAtRef = 64 << 10

// keysAtRef reads .the-loop/signing.pub as committed at ref, in the git
// repository holding root (root may be a subdirectory of it): nil with no
// error when that commit has no such file. It is the one place check runs
// a program: git, three times, reading objects only.
func keysAtRef(ctx context.Context, root, ref string) (*runtime.KeyFile, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, invalid(errors.New("--trusted-keys-from needs a git ref or commit, such as origin/main"))
	}
	commit, why, ok, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return nil, err
	}
	if !ok {
		if why != "" {
			why = " (git: " + why + ")"
		}
		return nil, invalid(fmt.Errorf("--trusted-keys-from %s: git finds no such commit in %s%s; fetch it first, e.g. `git fetch --depth=1 origin %s`", ref, root, why, ref))
	}
	object := strings.TrimSpace(commit) + ":./" + runtime.PublicKeyFile
	if _, _, ok, err := git(ctx, root, "cat-file", "-e", object); err != nil || !ok {
		return nil, err
	}
	text, _, ok, err := git(ctx, root, "cat-file", "blob", object)
	if err != nil {
		return nil, err
	}
	if !ok || len(text) > maxKeyFileAtRef {
		return nil, fmt.Errorf("--trusted-keys-from %s: %s there could not be read (or is larger than %d bytes)", ref, runtime.PublicKeyFile, maxKeyFileAtRef)
	}
	kf, err := runtime.ParseKeyFile(text)
	if err != nil {
		return nil, fmt.Errorf("--trusted-keys-from %s: %s there: %w", ref, runtime.PublicKeyFile, err)
	}
	return &kf, nil
}

// git runs git in dir and returns its standard output, the first line of
// its standard error, and whether it exited 0. A directory outside any git
// repository is an error that quotes git's reason.
func git(ctx context.Context, dir string, args ...string) (stdout, why string, ok bool, err error) {
	env, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
	if err != nil {
		return "", "", false, err
	}
	res, err := proc.Run(ctx, proc.Command{Argv: append([]string{"git", "-C", dir}, args...), Env: env.List(), Timeout: gitTimeout, MaxOutput: maxKeyFileAtRef + 1})
	if errors.Is(err, proc.ErrNotFound) {
		return "", "", false, invalid(errors.New("--trusted-keys-from reads the key file with git, which is not on PATH"))
	}
	if err != nil {
		return "", "", false, fmt.Errorf("git %s: %w", args[0], err)
	}
	msg, _, _ := bytes.Cut(bytes.TrimSpace(res.Stderr), []byte("\n"))
	if !res.Status.Success() {
		if bytes.Contains(msg, []byte("not a git repository")) {
			return "", "", false, invalid(fmt.Errorf("--trusted-keys-from: %s is not in a git repository (git: %s)", dir, msg))
		}
		return "", string(msg), false, nil
	}
	return string(res.Stdout), "", true, nil
}
