package repoconfig

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The keys of the repository's own commands, under commands: in the
// repository config, in the order they run.
const (
	CommandLint      = "lint"
	CommandTypeCheck = "typeCheck"
	CommandTest      = "test"
)

// CommandKeys lists the command keys in the order verify-tests runs them.
var CommandKeys = []string{CommandLint, CommandTypeCheck, CommandTest}

// DefaultCommandTimeoutSeconds bounds one command when the repository sets
// no commands.timeoutSeconds.
const DefaultCommandTimeoutSeconds = 900

// Commands are the repository's own lint, type-check and test commands:
// each an argv, run without a shell in the item's working tree by
// verify-tests. An empty argv means the repository declares none.
type Commands struct {
	Lint      []string
	TypeCheck []string
	Test      []string
	// TimeoutSeconds bounds each command (0: DefaultCommandTimeoutSeconds).
	TimeoutSeconds int
}

// Command is one declared command and the key that declares it.
type Command struct {
	// Key is lint, typeCheck or test.
	Key  string
	Argv []string
}

// Declared lists the declared commands in the order they run.
func (c Commands) Declared() []Command {
	var out []Command
	for _, k := range CommandKeys {
		if argv := c.argv(k); len(argv) > 0 {
			out = append(out, Command{Key: k, Argv: append([]string(nil), argv...)})
		}
	}
	return out
}

// Timeout is the bound on one command, in seconds.
func (c Commands) Timeout() int {
	if c.TimeoutSeconds > 0 {
		return c.TimeoutSeconds
	}
	return DefaultCommandTimeoutSeconds
}

func (c Commands) argv(key string) []string {
	switch key {
	case CommandLint:
		return c.Lint
	case CommandTypeCheck:
		return c.TypeCheck
	case CommandTest:
		return c.Test
	}
	return nil
}

// readCommands reads the commands: block of the repository config, strictly:
// an unknown key, a command that is not a list of words, or a bad timeout is
// refused naming the key and its line.
func readCommands(data []byte) (Commands, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return Commands{}, nil // the caller reports a file that is not YAML
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return Commands{}, nil
	}
	var block *yaml.Node
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "commands" {
			block = doc.Content[i+1]
		}
	}
	if block == nil || block.Tag == "!!null" {
		return Commands{}, nil
	}
	if block.Kind != yaml.MappingNode {
		return Commands{}, commandErr(block, "commands", "is not a mapping; give %s, each a list such as [go, test, ./...]", strings.Join(allKeys(), ", "))
	}
	var c Commands
	for i := 0; i+1 < len(block.Content); i += 2 {
		k, v := block.Content[i], block.Content[i+1]
		key := "commands." + k.Value
		switch k.Value {
		case CommandLint, CommandTypeCheck, CommandTest:
			argv, err := readArgv(key, v)
			if err != nil {
				return Commands{}, err
			}
			*c.field(k.Value) = argv
		case "timeoutSeconds":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n <= 0 {
				return Commands{}, commandErr(v, key, "give the seconds one command may run as a positive whole number, or leave it out for %d", DefaultCommandTimeoutSeconds)
			}
			c.TimeoutSeconds = n
		default:
			return Commands{}, commandErr(k, key, "unknown key; the commands are %s", strings.Join(allKeys(), ", "))
		}
	}
	return c, nil
}

func (c *Commands) field(key string) *[]string {
	switch key {
	case CommandLint:
		return &c.Lint
	case CommandTypeCheck:
		return &c.TypeCheck
	}
	return &c.Test
}

// readArgv reads one command: a list of words, the first naming the
// program. A string is refused: nothing is split or run through a shell.
func readArgv(key string, v *yaml.Node) ([]string, error) {
	if v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, commandErr(v, key, "give the command as a list of words, e.g. [go, test, ./...]; it never runs through a shell, so a string is not split")
	}
	argv := make([]string, 0, len(v.Content))
	for i, w := range v.Content {
		if w.Kind != yaml.ScalarNode || w.Tag == "!!null" {
			return nil, commandErr(w, fmt.Sprintf("%s[%d]", key, i), "is not a word; every element of a command is a string")
		}
		argv = append(argv, w.Value)
	}
	if len(argv) > 0 && strings.TrimSpace(argv[0]) == "" {
		return nil, commandErr(v, key+"[0]", "is empty; name the program to run, e.g. go")
	}
	return argv, nil
}

func allKeys() []string { return append(append([]string(nil), CommandKeys...), "timeoutSeconds") }

func commandErr(n *yaml.Node, key, format string, args ...any) error {
	return invalidError{fmt.Errorf("%s line %d: %s: %s", Path, n.Line, key, fmt.Sprintf(format, args...))}
}

// CommandsOf reads the commands: block of a repository config's content
// (a committed version of Path), as Open reads the file's.
func CommandsOf(data []byte) (Commands, error) { return readCommands(data) }

// Equal reports whether c and o declare the same commands and bound.
func (c Commands) Equal(o Commands) bool {
	return slices.Equal(c.Lint, o.Lint) && slices.Equal(c.TypeCheck, o.TypeCheck) && slices.Equal(c.Test, o.Test) && c.TimeoutSeconds == o.TimeoutSeconds
}
