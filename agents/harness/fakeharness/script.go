package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// scriptDirectives reads DIR/<node>/fake as "fake:" lines.
func scriptDirectives(script, node string) string {
	if script == "" || node == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(script, node, "fake"))
	if err != nil {
		return ""
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, "fake: "+l)
		}
	}
	return strings.Join(out, "\n")
}

// variant is the script folder of node for this run: node.ci-fix when the
// prompt reports a failed CI, node.revise when a gate sent the work back —
// where that folder exists — else node.
func variant(script, node, prompt string) string {
	var v string
	switch {
	case strings.Contains(prompt, ": CI failed on "):
		v = node + ".ci-fix"
	case strings.Contains(prompt, ": a gate sent the work back."):
		v = node + ".revise"
	default:
		return node
	}
	if fi, err := os.Stat(filepath.Join(script, v)); err == nil && fi.IsDir() {
		return v
	}
	return node
}

// playScript writes the node's scripted files into the item's spec folder,
// commits them and pushes the branch.
func playScript(o options, node string, asked directives) error {
	if o.script == "" || node == "" {
		return nil
	}
	dir := filepath.Join(o.script, node)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	spec := filepath.Join("docs", "specs", o.item)
	var written []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "fake" {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := asked.place(spec, strings.TrimSuffix(rel, ".sed"))
		if strings.HasSuffix(rel, ".sed") {
			if body, err = edit(filepath.Join(o.workdir, target), string(body)); err != nil {
				return err
			}
		}
		abs := filepath.Join(o.workdir, target)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		written = append(written, target)
		return os.WriteFile(abs, body, 0o644)
	})
	if err != nil || len(written) == 0 {
		return err
	}
	sort.Strings(written)
	msg := "Work " + node + " of " + o.item
	if base, v, ok := strings.Cut(node, "."); ok {
		msg = fmt.Sprintf("Work %s of %s (%s)", base, o.item, v)
	}
	return commitAndPush(o, written, msg)
}

// commitAndPush commits paths when they changed anything (a run after an
// earlier one's work was committed for it finds nothing new, as a real
// agent would) and pushes the branch: a commit an earlier run could not
// push (a refusing remote) goes out with the next.
func commitAndPush(o options, paths []string, msg string) error {
	git := func(args ...string) ([]byte, error) {
		return exec.Command("git", append([]string{"-C", o.workdir}, args...)...).CombinedOutput()
	}
	if out, err := git(append([]string{"add", "--"}, paths...)...); err != nil {
		return fmt.Errorf("git add: %v: %s", err, out)
	}
	steps := [][]string{{"push", "--quiet"}}
	if _, err := git("diff", "--cached", "--quiet"); err != nil {
		steps = append([][]string{{"-c", "user.name=Fake Agent", "-c", "user.email=agent@example.invalid", "commit", "--quiet", "-m", msg}}, steps...)
	}
	for _, args := range steps {
		if out, err := git(args...); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// edit applies "old => new" lines to the file at path.
func edit(path, script string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(b)
	for _, l := range strings.Split(script, "\n") {
		old, repl, ok := strings.Cut(l, " => ")
		if !ok {
			continue
		}
		if !strings.Contains(text, old) {
			return nil, fmt.Errorf("%s holds no %q to edit", path, old)
		}
		text = strings.ReplaceAll(text, old, repl)
	}
	return []byte(text), nil
}

// probe tries, through the session's own MCP server, what a session must
// never do — read another item, post a handoff, open a ticket — and
// records each answer in <state>/<item>.probe-<run>.json.
func probe(o options, run int) error {
	c, err := connect(o)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	calls := []struct {
		name string
		args map[string]any
	}{
		{"graph_status", map[string]any{"workItem": "issue-999"}},
		{"graph_complete", map[string]any{"workItem": "issue-999"}},
		{"handoff_post", map[string]any{"workItem": o.item, "stage": "design", "fromDir": o.workdir}},
		{"ticket_create", map[string]any{"title": "a ticket of the session's own"}},
	}
	answers := map[string]map[string]any{}
	for _, call := range calls {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = call.name, call.args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			answers[call.name] = map[string]any{"error": err.Error()}
			continue
		}
		answers[call.name] = map[string]any{"isError": res.IsError, "text": text(res)}
	}
	b, _ := json.MarshalIndent(answers, "", "  ")
	return os.WriteFile(filepath.Join(o.state, fmt.Sprintf("%s.probe-%d.json", o.item, run)), b, 0o600)
}

func text(res *mcp.CallToolResult) string {
	var out string
	for _, part := range res.Content {
		if tc, ok := part.(mcp.TextContent); ok {
			out += tc.Text
		}
	}
	return out
}

// connect starts the one MCP server the session's config names and
// initializes it.
func connect(o options) (*client.Client, error) {
	srv := o.server
	if srv == nil {
		if o.mcpConfig == "" {
			return nil, errors.New("the MCP server needs --mcp-config")
		}
		raw, err := os.ReadFile(o.mcpConfig)
		if err != nil {
			return nil, err
		}
		var cfg struct {
			MCPServers map[string]*server `json:"mcpServers"`
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, fmt.Errorf("mcp config: %w", err)
		}
		var ok bool
		if srv, ok = cfg.MCPServers["the-loop"]; !ok || len(cfg.MCPServers) != 1 {
			return nil, fmt.Errorf("mcp config must name exactly the the-loop server, got %d servers", len(cfg.MCPServers))
		}
	}
	var env []string
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	c, err := client.NewStdioMCPClient(srv.Command, env, srv.Args...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "fakeharness", Version: "1"}}}); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("mcp initialize: %w", err)
	}
	return c, nil
}

// runIDRE finds the run id in critic_run's text ("critic codex, run <id>: …").
var runIDRE = regexp.MustCompile(`run (cr-[A-Za-z0-9-]+):`)

// criticRound runs one round of critic name through the session's server,
// recorded on the loop the session works, and writes, commits and pushes
// the round table naming it (a round with no new finding, so the review
// may stop).
func criticRound(o options, name string, d directives) error {
	spec := filepath.Join("docs", "specs", o.item)
	prompt := filepath.Join(spec, "review-assignment.md")
	if err := os.MkdirAll(filepath.Join(o.workdir, spec, "evidence"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.workdir, prompt), []byte("Review the change against its requirements.\n"), 0o644); err != nil {
		return err
	}
	out, err := call(o, "critic_run", withPR(map[string]any{"workItem": o.item, "critic": name, "promptFile": prompt}))
	if err != nil {
		return err
	}
	m := runIDRE.FindStringSubmatch(out)
	if m == nil {
		return fmt.Errorf("critic_run named no run: %s", out)
	}
	table := "# Critic review\n\n| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n| 1 | " + name + " | " + m[1] + " | 0 | 0 |\n"
	record := d.place(spec, "evidence/critic-review.md")
	if err := os.MkdirAll(filepath.Join(o.workdir, filepath.Dir(record)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.workdir, record), []byte(table), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"add", "--", prompt, record},
		{"-c", "user.name=Fake Agent", "-c", "user.email=agent@example.invalid", "commit", "--quiet", "-m", "Critic round of " + o.item},
		{"push", "--quiet"},
	} {
		cmd := exec.Command("git", append([]string{"-C", o.workdir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// place is where the agent writes file rel of the spec folder spec,
// relative to its working tree: a pull request loop's record goes in that
// loop's own folder, as its prompt names it, and a file under root/ goes to
// the tree's root.
func (d directives) place(spec, rel string) string {
	if code, ok := strings.CutPrefix(filepath.ToSlash(rel), "root/"); ok {
		return filepath.FromSlash(code)
	}
	if d.loopDir != "" && slices.Contains(d.records, filepath.ToSlash(rel)) {
		return filepath.Join(filepath.FromSlash(d.loopDir), rel)
	}
	return filepath.Join(spec, rel)
}
