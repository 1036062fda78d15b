//go:build linux

package gateway

import (
	"fmt"
	"golang.org/x/sys/unix"
	"path/filepath"
)

// maxSocketPath is the longest path bind and connect take (sun_path, less
// its terminating zero).
const maxSocketPath = 107

// shortPath returns a path to the socket at path that fits sun_path: the
// path itself, or the same file reached through an open descriptor of its
// directory (/proc/self/fd/N/NAME). done closes that descriptor.
func shortPath(path string) (short string, done func(), err error) {
	if len(path) <= maxSocketPath {
		return path, func() {}, nil
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("socket directory %s: %w", filepath.Dir(path), err)
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(path)), func() { _ = unix.Close(fd) }, nil
}
