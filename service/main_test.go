package service

import (
	"os"
	"testing"

	"github.com/the-loop/the-loop/internal/testbin"
)

// TestMain removes the programs the package's tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
