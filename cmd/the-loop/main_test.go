package main

import (
	"os"
	"testing"

	"github.com/the-loop/the-loop/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
