package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// Env carries the process's streams and environment so commands can be
// tested with buffers.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Cwd is the working directory commands resolve --repo against.
	Cwd string
}

func newEnv() *Env {
	cwd, _ := os.Getwd()
	// Under systemd, an unset variable reads the credential of its name.
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: config.WithCredentials(os.Getenv), Cwd: cwd}
}

// Command is one subcommand. Run receives the arguments after the name.
type Command struct {
	Name    string
	Usage   string
	Summary string
	Run     func(ctx context.Context, f *Factory, args []string) error
}

var commands = map[string]*Command{}

// register adds a subcommand; each command file calls it from init.
func register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("duplicate command " + c.Name)
	}
	commands[c.Name] = c
}

// Main runs the CLI and returns the exit code. Data goes to stdout,
// messages to stderr.
func Main(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.Stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" {
		args = []string{"version"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "error: unknown command %q\n\n", args[0])
		printUsage(env.Stderr)
		return exitUsage
	}
	err := cmd.Run(ctx, newFactory(env), args[1:])
	return exitCode(env.Stderr, err)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: the-loop <command> [flags]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nRun 'the-loop <command> -h' for a command's flags.")
}

// flagSet returns a FlagSet that reports errors instead of exiting, writes
// help to stderr, and binds the --config flag every subcommand accepts to
// the factory.
func flagSet(f *Factory, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(f.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(f.Stderr, "usage: the-loop %s\n\nflags:\n", usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.ConfigPath, "config", "", "config file (default $THE_LOOP_CONFIG, else ~/.config/the-loop/config.yaml)")
	return fs
}

// parseFlags parses args, allowing flags after positional arguments, and
// returns the positionals. A flag error is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &usageError{msg: err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// oneOf validates an enum flag value.
func oneOf(flagName, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usageErrorf("--%s %q is not one of %s", flagName, value, strings.Join(allowed, ", "))
}
