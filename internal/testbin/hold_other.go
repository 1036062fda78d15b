//go:build !unix

package testbin

import "os"

// ownedByMe cannot tell here; the folder's mode is checked alone.
func ownedByMe(os.FileInfo) bool { return true }

// holdShared is a no-op where there are no kernel file locks.
func holdShared(string) error { return nil }

// unused is false where no lock can tell: nothing is removed.
func unused(string) bool { return false }
