package graphs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks"
)

// The plugin ships one command per command a shipped graph names
// (plugin/commands/<name>.md, invoked as /the-loop:<name>), plus the entry commands
// that no single node names.

var commandsDir = filepath.Join("..", "plugin", "commands")

// entryCommands ship without a node naming them: work-on drives any node,
// handoff carries a conversation into the loop.
var entryCommands = map[string]bool{"work-on": true, "handoff": true}

func shippedHooks(t *testing.T) *runtime.Registry {
	t.Helper()
	reg, err := hooks.Registry()
	require.NoError(t, err)
	return reg
}

func compileAll(t *testing.T) []*runtime.Graph {
	t.Helper()
	var out []*runtime.Graph
	for _, name := range graphs.Names() {
		src, err := graphs.Source(name)
		require.NoError(t, err)
		g, err := runtime.Compile(name, src, shippedHooks(t))
		require.NoError(t, err)
		out = append(out, g)
	}
	return out
}

// missingCommands lists "<loop>/<node>: /the-loop:<command>" for every node
// whose command has no file in dir.
func missingCommands(gs []*runtime.Graph, dir string) []string {
	var out []string
	for _, g := range gs {
		for _, n := range g.Nodes {
			if n.Command == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, n.Command+".md")); err != nil {
				out = append(out, g.Name+"/"+n.ID+": /the-loop:"+n.Command)
			}
		}
	}
	return out
}

func TestEveryCommandAGraphNamesShips(t *testing.T) {
	assert.Empty(t, missingCommands(compileAll(t), commandsDir))
}

// TestAGraphNamingAnUnshippedCommandFails proves the check above can fail:
// a graph whose node names a command with no file is reported by node.
func TestAGraphNamingAnUnshippedCommandFails(t *testing.T) {
	src, err := graphs.Source("pdlc-work-item-loop")
	require.NoError(t, err)
	bad := strings.Replace(string(src), "command: create-design", "command: draw-the-design", 1)
	g, err := runtime.Compile("pdlc-work-item-loop", []byte(bad), shippedHooks(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"pdlc-work-item-loop/design: /the-loop:draw-the-design"}, missingCommands([]*runtime.Graph{g}, commandsDir))
}

// commandFile is a command's front matter and body.
type commandFile struct {
	Description  string `yaml:"description"`
	ArgumentHint string `yaml:"argument-hint"`
	body         string
}

func readCommand(t *testing.T, name string) commandFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(commandsDir, name+".md"))
	require.NoError(t, err)
	text := string(raw)
	require.True(t, strings.HasPrefix(text, "---\n"), "%s starts with front matter", name)
	fm, body, ok := strings.Cut(text[4:], "\n---\n")
	require.True(t, ok, "%s closes its front matter", name)
	var c commandFile
	dec := yaml.NewDecoder(strings.NewReader(fm))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&c), name)
	c.body = body
	return c
}

func shippedCommands(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(commandsDir, "*.md"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".md"))
	}
	sort.Strings(names)
	return names
}

// TestEveryShippedCommandIsNamedByAGraph: no command ships that no graph
// names, apart from the entry commands.
func TestEveryShippedCommandIsNamedByAGraph(t *testing.T) {
	named := map[string]bool{}
	for _, g := range compileAll(t) {
		for _, n := range g.Nodes {
			named[n.Command] = true
		}
	}
	for _, c := range shippedCommands(t) {
		assert.True(t, named[c] || entryCommands[c], "plugin/commands/%s.md is named by no shipped graph", c)
	}
}

// TestNodeCommandsSayWhatTheNodeNeeds: each command names the nodes it
// works, how to read where the item stands and how to claim, and what a
// session never does.
func TestNodeCommandsSayWhatTheNodeNeeds(t *testing.T) {
	worked := map[string][]*runtime.Node{}
	for _, g := range compileAll(t) {
		for _, n := range g.Nodes {
			if n.Command != "" {
				worked[n.Command] = append(worked[n.Command], n)
			}
		}
	}
	for cmd, nodes := range worked {
		c := readCommand(t, cmd)
		assert.NotEmpty(t, c.Description, cmd)
		assert.LessOrEqual(t, len(c.Description), 250, "%s: a command description is one line", cmd)
		assert.Equal(t, "<work-item-id>", c.ArgumentHint, cmd)
		for _, want := range []string{"$ARGUMENTS", "graph_status", "$graph_context", "operating-model",
			"status: approved", "the-loop graph skip", "the-loop graph force", "the-loop execute"} {
			assert.Contains(t, c.body, want, cmd)
		}
		claims := false
		for _, n := range nodes {
			assert.Contains(t, c.body, "`"+n.ID+"`", "%s names the node %s it works", cmd, n.ID)
			claims = claims || !n.Terminal && !n.IsHuman()
		}
		if claims {
			assert.Contains(t, c.body, "graph_complete", "%s says how to claim", cmd)
		}
	}
}

// TestNodeCommandsNameTheArtifactsTheirNodesProduce ties each command to the
// artifact its agent nodes produce.
func TestNodeCommandsNameTheArtifactsTheirNodesProduce(t *testing.T) {
	for _, g := range compileAll(t) {
		for _, n := range g.Nodes {
			if n.Command == "" || n.IsHuman() || n.Terminal {
				continue
			}
			body := readCommand(t, n.Command).body
			for _, slot := range n.Produces {
				for _, name := range runtime.Alternatives(slot) {
					assert.Contains(t, body, name, "%s (%s/%s)", n.Command, g.Name, n.ID)
				}
			}
		}
	}
}

var templateRef = regexp.MustCompile(`templates/([a-z/-]+\.md)`)

// TestTemplatesTheCommandsNameExist: every template path a command or the
// operating-model skill names ships.
func TestTemplatesTheCommandsNameExist(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(commandsDir, "*.md"))
	require.NoError(t, err)
	files = append(files, filepath.Join("..", "skills", "operating-model", "SKILL.md"))
	refs := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range templateRef.FindAllStringSubmatch(string(data), -1) {
			refs++
			_, err := os.Stat(filepath.Join("..", "skills", "operating-model", "templates", filepath.FromSlash(m[1])))
			assert.NoError(t, err, "%s names templates/%s", filepath.Base(f), m[1])
		}
	}
	assert.Positive(t, refs)
}
