//go:build !linux

package specdir

import (
	"errors"
	"os"
)

// readDirKinds has no directory-entry types to read here: every name is
// asked of the file system.
func readDirKinds(*os.File) (map[string]entryKind, error) {
	return nil, errors.ErrUnsupported
}

// readAt is not done here; the caller reads the portable way.
func readAt(*os.File, string) ([]byte, bool, error) { return nil, false, nil }
