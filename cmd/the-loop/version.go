package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

// Version returns the build version: the ldflags value, else the module
// version, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func versionCmd() *Command {
	return &Command{Name: "version", Usage: "version", Summary: "print the version",
		Run: func(ctx context.Context, f *Factory, args []string) error {
			fmt.Fprintf(f.Stdout, "the-loop %s\n", Version())
			return nil
		}}
}
