package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NotFoundError says a program is not on a child's PATH.
type NotFoundError struct {
	Program string
	Path    string // the PATH searched
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("executable %q not found on PATH (%s)", e.Program, e.Path)
}

// LookPath finds the program a child with env would run: an absolute path
// as given, a bare name in the absolute entries of env's PATH (a relative
// entry would resolve inside whatever directory the child runs in, and is
// skipped). A missing bare name is a *NotFoundError; an absolute path that
// cannot run says why ("does not exist", "is not executable", …).
func LookPath(prog string, env *Env) (string, error) {
	if filepath.IsAbs(prog) {
		if err := Executable(prog); err != nil {
			return "", fmt.Errorf("executable %s %w", prog, err)
		}
		return prog, nil
	}
	pathList, _ := env.Get("PATH")
	for _, d := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(d) {
			continue
		}
		cand := filepath.Join(d, prog)
		if Executable(cand) == nil {
			return cand, nil
		}
	}
	return "", &NotFoundError{Program: prog, Path: pathList}
}

// Executable says why path cannot be run (nil when it can).
func Executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("does not exist")
	case err != nil:
		return fmt.Errorf("cannot be read: %w", err)
	case fi.IsDir():
		return errors.New("is a directory")
	case fi.Mode()&0o111 == 0:
		return errors.New("is not executable")
	}
	return nil
}
