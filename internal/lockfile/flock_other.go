//go:build !unix

package lockfile

import (
	"errors"
	"fmt"
	"os"
)

func tryLock(*os.File) error {
	return fmt.Errorf("kernel file locks: %w on this platform", errors.ErrUnsupported)
}

func unlock(*os.File) error { return nil }
