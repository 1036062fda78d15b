package scenario_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the scenarios four at a time unless -parallel says
// otherwise: each waits on its poller and sessions most of its time, so
// go test's default (one per CPU) leaves a 2-core machine half idle while
// this package is the last one running.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", "4"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
