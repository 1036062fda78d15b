package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/lazyre"
	"github.com/the-loop/the-loop/internal/nearest"
)

// Env carries the process's streams and environment so commands can be
// tested with buffers.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Environ lists the environment, for scrubbing secret values from
	// what launched sessions and git report (nil: os.Environ()).
	Environ []string
	// Cwd is the working directory commands resolve --repo against.
	Cwd string
	// Process is true for the process's own streams: the factory's logger
	// then also becomes slog's default, and through it the log package's,
	// so no library writes a line of its own format.
	Process bool
}

func newEnv() *Env {
	cwd, _ := os.Getwd()
	// Under systemd, an unset variable reads the credential of its name.
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: config.WithCredentials(os.Getenv), Cwd: cwd, Process: true}
}

// Command is a verb, or a group of verbs. A verb's Run parses its flags
// into its options and calls its run function; a group's Sub are its verbs,
// reached through dispatch.
type Command struct {
	Name    string
	Usage   string // the synopsis after "the-loop "
	Summary string
	Run     func(ctx context.Context, f *Factory, args []string) error
	// Noun is what a group calls its verbs in messages ("action", "verb",
	// "subcommand"); Sub are the verbs.
	Noun string
	Sub  []*Command
}

// theLoop is the root of the command tree: every verb of the CLI, in one
// list. A new verb is a line here and a file of its own.
func theLoop() *Command {
	return &Command{Noun: "command", Sub: []*Command{
		checkCmd(), continuityCmd(), criticCmd(), gateCmd(), graphCmd(), handoffCmd(), harnessCmd(), keysCmd(),
		planCmd(), pollCmd(), prCmd(), runCmd(), serveCmd(), sessionsCmd(), ticketCmd(), versionCmd(),
	}}
}

// Main runs the CLI and returns the exit code. Data goes to stdout,
// messages to stderr.
func Main(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 && args[0] == "--version" {
		args = []string{"version"}
	}
	f := newFactory(env)
	if env.Process {
		slog.SetDefault(f.Logger())
	}
	code := exitCode(f.Stderr, theLoop().dispatch(ctx, f, args))
	f.Stderr.(*stderrLines).flush()
	return code
}

// dispatch runs the verb args name, through as many groups as it takes:
// the one dispatcher of every command and sub-command. A group given no
// verb prints its help and is a usage error; -h, --help and help print it.
func (c *Command) dispatch(ctx context.Context, f *Factory, args []string) error {
	if c.Sub == nil {
		return c.Run(ctx, f, args)
	}
	if len(args) == 0 {
		c.help(f.Stderr)
		return usageErrorf("%s needs %s %s: %s", c.path(), article(c.Noun), c.Noun, strings.Join(c.verbs(), ", "))
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		// Asked-for help is output: stdout, exit 0.
		c.help(f.Stdout)
		return nil
	}
	i := slices.IndexFunc(c.Sub, func(s *Command) bool { return s.Name == args[0] })
	if i < 0 {
		verbs := c.verbs()
		hint := ""
		if p := nearest.Phrase(nearest.Close(args[0], verbs)); p != "" {
			hint = "; " + p
		}
		return usageErrorf("unknown %s%s %q%s (use %s or %s)", c.prefix(), c.Noun, args[0], hint,
			strings.Join(verbs[:len(verbs)-1], ", "), verbs[len(verbs)-1])
	}
	return c.Sub[i].dispatch(ctx, f, args[1:])
}

// help prints a group's synopsis and its verbs.
func (c *Command) help(w io.Writer) {
	fmt.Fprintf(w, "usage: the-loop %s<%s> [flags]\n\n", c.prefix(), c.Noun)
	width := 0
	for _, s := range c.Sub {
		width = max(width, len(s.Name))
	}
	for _, name := range c.verbs() {
		s := c.Sub[slices.IndexFunc(c.Sub, func(s *Command) bool { return s.Name == name })]
		fmt.Fprintf(w, "  %-*s  %s\n", max(width, 10), s.Name, s.Summary)
	}
	fmt.Fprintf(w, "\nRun 'the-loop %s<%s> -h' for its flags.\n", c.prefix(), c.Noun)
}

// verbs are a group's verb names, sorted.
func (c *Command) verbs() []string {
	names := make([]string, 0, len(c.Sub))
	for _, s := range c.Sub {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
}

// path names the group in messages ("the-loop" for the root).
func (c *Command) path() string {
	if c.Name == "" {
		return "the-loop"
	}
	return c.Name
}

// prefix is the group's name and a space ("" for the root).
func (c *Command) prefix() string {
	if c.Name == "" {
		return ""
	}
	return c.Name + " "
}

func article(noun string) string {
	if strings.ContainsAny(noun[:1], "aeiou") {
		return "an"
	}
	return "a"
}

// flagSet returns a FlagSet that reports errors instead of exiting and
// prints nothing itself (parseFlags prints help on stdout and returns each
// error once), with the flags every command accepts bound to the factory:
// --config and --log-format.
func (f *Factory) flagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f.usages[fs] = usage
	fs.StringVar(&f.ConfigPath, "config", "", "config file (default $THE_LOOP_CONFIG, else ~/.config/the-loop/config.yaml)")
	fs.Var(logFormatFlag{f}, "log-format", "text or json: the form of every line on stderr (json under systemd)")
	return fs
}

// usage prints fs's synopsis and flags to w.
func (f *Factory) usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: the-loop %s\n\nflags:\n", f.usages[fs])
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parseFlags parses args, allowing flags after positional arguments, and
// returns the positionals. -h prints the usage on stdout (flag.ErrHelp,
// exit 0); a flag error is a usage error naming the nearest flags.
func (f *Factory) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.usage(fs, f.Stdout)
				return nil, err
			}
			return nil, flagError(fs, err)
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

// invalidFlagValue is the flag package's refusal of a value.
var invalidFlagValue = lazyre.New(`^invalid (?:boolean )?value (".*") for flag -([^:]+): (.*)$`)

// flagError rewrites the flag package's error for people: an unknown flag
// names the nearest ones, and every error says where the flags are listed.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := invalidFlagValue().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s %s: %s", m[2], m[1], m[3])
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var known []string
		fs.VisitAll(func(fl *flag.Flag) { known = append(known, fl.Name) })
		msg = fmt.Sprintf("unknown flag --%s for the-loop %s", name, fs.Name())
		if close := nearest.Close(name, known); len(close) > 0 {
			for i := range close {
				close[i] = "--" + close[i]
			}
			msg += "; " + strings.ReplaceAll(nearest.Phrase(close), `"`, "")
		}
	}
	return usageErrorf("%s (run 'the-loop %s -h' for its flags)", msg, fs.Name())
}

// oneOf validates an enum flag value.
func oneOf(flagName, value string, allowed ...string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	hint := ""
	if p := nearest.Phrase(nearest.Close(value, allowed)); p != "" {
		hint = "; " + p
	}
	return usageErrorf("--%s %q is not one of %s%s", flagName, value, strings.Join(allowed, ", "), hint)
}
