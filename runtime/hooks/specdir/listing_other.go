//go:build !linux

package specdir

import "errors"

// openListing has no directory-entry types to read here (readDirKinds):
// every name is asked of the file system.
func openListing(*folder, string) (*listing, error) { return nil, errors.ErrUnsupported }

// closeFd is never called here: openListing opens nothing.
func closeFd(int) {}

// readDirKinds has no directory-entry types to read here.
func readDirKinds(int) (map[string]entryKind, error) { return nil, errors.ErrUnsupported }

// readAt is not done here; the caller reads the portable way.
func readAt(int, string) ([]byte, bool, error) { return nil, false, nil }
