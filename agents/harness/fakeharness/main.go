// Command fakeharness stands in for an agent harness in tests. It reads
// its prompt file, writes the artifact the prompt names into its working
// tree, commits it (the loop pushes; a session never does), and, with
// --claim, claims the node through the MCP server named in its
// --mcp-config (the-loop serve over stdio, through mcp-go's client). It prints Claude-shaped stream-json, so the
// supervisor reads its usage like a real session's.
//
// Run under the name of an agent CLI (a copy or link named claude, codex,
// gemini or opencode), it stands in for that CLI instead: it reads the
// argv and per-session configuration the harness adapter of that name
// writes (the prompt on stdin or as its argument, the item's MCP server
// from that CLI's own configuration), refuses any flag that bypasses
// approvals, and prints that CLI's machine output (persona.go). Its state
// and script then come from <program>.fake.json beside it.
//
// Prompt lines it obeys (anything else is ignored):
//
//	artifact: <path>                  write and commit this file
//	fake: fail-runs=N                 runs 1..N exit 1 without working
//	fake: hang-runs=N                 runs 1..N report usage, then hang
//	fake: wait-for=NAME               report usage, then work only once the file NAME exists in --state
//	fake: usage turns=T tokens=N cost=X
//	fake: env-dump                    write the environment and argv to the state dir
//	fake: probe                       try to reach another item and post a handoff through the MCP server
//	fake: replay=CASE                 print the recording CASE of the CLI it stands in for (harnesstest) and
//	                                  exit as that CLI did; nothing else is done
//
// With --script DIR it also plays a scripted agent: for the node in
// THE_LOOP_NODE, every file under DIR/<node>/ is written to the item's spec
// folder (docs/specs/<item>/) — or, under DIR/<node>/root/, to the working
// tree's root (code) —, a file ending in .sed edits the file of its name in
// place ("old => new" per line), and a file named "fake" adds directives as
// above; what it wrote is committed, never pushed (nothing is committed when
// nothing changed). When the prompt says why the node runs again, it plays
// DIR/<node>.ci-fix/ (CI failed on the pull request) or DIR/<node>.revise/
// (a gate sent the work back) instead, where that folder exists.
//
// A session working a pull request's loop (THE_LOOP_PR and
// THE_LOOP_PR_REPO set) plays DIR/pr/<node>/ instead, claims that pull
// request's node, and counts its runs as "<item>.pr-<n>".
//
//	fake: pr-create                   open the item's pull request (pr_create) before claiming
//	fake: critic=NAME                 run a round of critic NAME (critic_run, recorded on the loop the
//	                                  session works) and write evidence/critic-review.md naming it
//
// Runs are counted per work item in --state, which also receives a
// "<item>.run-<n>.ready" file once a run has printed its usage, and a
// "<item>.run-<n>.pid" file holding the run's process id.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
	"github.com/the-loop/the-loop/internal/lazyre"
)

type options struct {
	promptFile, mcpConfig, workdir, item, model, effort, state, script string
	claim, dump                                                        bool
	// cli is the CLI a persona stands in for ("": the plain fake), out
	// prints its events, prompt is the assignment a persona read, and
	// server the item's MCP server its configuration named.
	cli    string
	out    emitter
	prompt string
	server *server
}

// server is the item's MCP server as a session's configuration names it.
type server struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// directives are what the prompt asks of this run.
type directives struct {
	artifacts                 []string
	failRuns, hangRuns, turns int
	tokens                    int64
	cost                      float64
	envDump, probe, prCreate  bool
	critic, replay            string
	// waitFor names a file in the state directory the run waits for
	// before it works (a test's cue).
	waitFor string
	// loopDir and records are a pull request loop's own folder and the
	// files it keeps there, as the prompt names them.
	loopDir string
	records []string
}

func main() {
	if p := personaOf(os.Args[0]); p != nil {
		if answered, err := p.answer(os.Args[1:]); answered {
			if err != nil {
				fmt.Fprintln(os.Stderr, "fakeharness:", err)
				os.Exit(1)
			}
			return
		}
		o, err := p.options(os.Args[1:])
		if err == nil {
			err = run(o)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeharness:", err)
			os.Exit(exitCode(err))
		}
		return
	}
	o := options{out: &claudeOut{}}
	flag.StringVar(&o.promptFile, "prompt-file", "", "the assignment")
	flag.StringVar(&o.mcpConfig, "mcp-config", "", "MCP config naming the-loop serve")
	flag.StringVar(&o.workdir, "workdir", ".", "the item's working tree")
	flag.StringVar(&o.item, "work-item", "", "work item id")
	flag.StringVar(&o.model, "model", "", "model chosen for the item")
	flag.StringVar(&o.effort, "effort", "", "effort chosen for the item")
	flag.StringVar(&o.state, "state", "", "directory for run counters, ready files and env dumps")
	flag.BoolVar(&o.claim, "claim", false, "claim the node through the MCP server once the artifact is committed")
	flag.StringVar(&o.script, "script", "", "directory of scripted artifacts, one folder per node")
	flag.BoolVar(&o.dump, "dump", false, "write the environment and argv of every run to the state dir")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "fakeharness:", err)
		os.Exit(exitCode(err))
	}
}

// exited is a run that ends with a recorded exit status.
type exited int

func (e exited) Error() string { return fmt.Sprintf("exit %d as recorded", int(e)) }

func exitCode(err error) int {
	var e exited
	if errors.As(err, &e) {
		return int(e)
	}
	return 1
}

func run(o options) error {
	prompt := o.prompt
	if o.cli == "" {
		if o.promptFile == "" {
			return errors.New("--prompt-file is required")
		}
		b, err := os.ReadFile(o.promptFile)
		if err != nil {
			return err
		}
		prompt = string(b)
	}
	node := os.Getenv("THE_LOOP_NODE")
	label, scriptNode := o.item, node
	if pr := os.Getenv("THE_LOOP_PR"); pr != "" {
		label, scriptNode = o.item+".pr-"+pr, filepath.Join("pr", node)
	}
	scriptNode = variant(o.script, scriptNode, prompt)
	d := parse(prompt + "\n" + scriptDirectives(o.script, scriptNode))
	if d.replay != "" {
		return replay(o.cli, d.replay)
	}
	if o.item == "" || o.state == "" {
		return errors.New("the work item (--work-item, or THE_LOOP_WORK_ITEM) and the state directory (--state, or the sidecar's state) are required")
	}
	n, err := nextRun(o.state, label)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.state, fmt.Sprintf("%s.run-%d.pid", label, n)), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return err
	}
	if d.envDump || o.dump {
		if err := os.WriteFile(filepath.Join(o.state, fmt.Sprintf("%s.env-%d", label, n)), []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.state, fmt.Sprintf("%s.args-%d", label, n)), []byte(strings.Join(os.Args, "\n")+"\n"), 0o600); err != nil {
			return err
		}
	}
	session := fmt.Sprintf("fake-%s-%d", label, n)
	o.out.start(session, o.model, o.workdir)
	o.out.progress(d.turns, d.tokens)
	if err := os.WriteFile(filepath.Join(o.state, fmt.Sprintf("%s.run-%d.ready", label, n)), []byte(session), 0o600); err != nil {
		return err
	}
	switch {
	case n <= d.hangRuns:
		// Until the supervisor stops it (not select{}: without cgo, Go calls that a deadlock and exits).
		for {
			time.Sleep(time.Hour)
		}
	case n <= d.failRuns:
		return fmt.Errorf("run %d fails on purpose", n)
	}
	if d.waitFor != "" {
		cue := filepath.Join(o.state, filepath.Base(d.waitFor))
		for {
			if _, err := os.Stat(cue); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, a := range d.artifacts {
		if err := publish(o, a, n); err != nil {
			return err
		}
	}
	if err := playScript(o, scriptNode, d); err != nil {
		return err
	}
	if d.prCreate {
		if _, err := call(o, "pr_create", map[string]any{"workItem": o.item}); err != nil {
			return err
		}
	}
	if d.critic != "" {
		if err := criticRound(o, d.critic, d); err != nil {
			return err
		}
	}
	if d.probe {
		if err := probe(o, n); err != nil {
			return err
		}
	}
	if o.claim {
		if err := claim(o); err != nil {
			return err
		}
	}
	o.out.finish(d.turns, d.tokens, d.cost, fmt.Sprintf("%s of %s is done.", node, o.item))
	return nil
}

// replay prints a recording of cli's (claude's for the plain fake) and
// ends as that CLI did.
func replay(cli, name string) error {
	if cli == "" {
		cli = "claude"
	}
	b, err := harnesstest.Recording(cli, name)
	if err != nil {
		return err
	}
	if _, err := os.Stdout.Write(b); err != nil {
		return err
	}
	if code := harnesstest.ExitCode(cli, name); code != 0 {
		return exited(code)
	}
	return nil
}

// recordsRE reads the prompt's line naming a pull request loop's own
// record folder and the files it keeps there.
var recordsRE = lazyre.New(`^This pull request's loop keeps its own records in (\S+)/: ([^.]+(?:\.md[^.]*)*)\. Write them there`)

func parse(prompt string) directives {
	var d directives
	sc := bufio.NewScanner(strings.NewReader(prompt))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := recordsRE().FindStringSubmatch(line); m != nil {
			d.loopDir = m[1]
			for _, r := range strings.Split(m[2], ",") {
				d.records = append(d.records, strings.TrimSpace(r))
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "artifact:"); ok {
			d.artifacts = append(d.artifacts, strings.TrimSpace(rest))
			continue
		}
		rest, ok := strings.CutPrefix(line, "fake:")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "fail-runs":
				d.failRuns, _ = strconv.Atoi(v)
			case "hang-runs":
				d.hangRuns, _ = strconv.Atoi(v)
			case "turns":
				d.turns, _ = strconv.Atoi(v)
			case "tokens":
				d.tokens, _ = strconv.ParseInt(v, 10, 64)
			case "cost":
				d.cost, _ = strconv.ParseFloat(v, 64)
			case "env-dump":
				d.envDump = true
			case "probe":
				d.probe = true
			case "pr-create":
				d.prCreate = true
			case "critic":
				d.critic = v
			case "wait-for":
				d.waitFor = v
			case "replay":
				d.replay = v
			}
		}
	}
	if d.turns == 0 {
		d.turns = 1
	}
	return d
}

// nextRun counts this run for the item.
func nextRun(state, item string) (int, error) {
	path := filepath.Join(state, item+".runs")
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	return n, os.WriteFile(path, []byte(strconv.Itoa(n)), 0o600)
}

// publish writes the artifact and commits it; the loop pushes the branch.
func publish(o options, rel string, run int) error {
	path := filepath.Join(o.workdir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	body := fmt.Sprintf("# %s\n\nWritten by run %d (model %q, effort %q).\n", filepath.Base(rel), run, o.model, o.effort)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"add", "--", rel},
		{"-c", "user.name=Fake Agent", "-c", "user.email=agent@example.invalid", "commit", "--quiet", "-m", "Write " + rel},
	} {
		cmd := exec.Command("git", append([]string{"-C", o.workdir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// claim calls graph_complete through the server the MCP config names,
// for the pull request's loop when the session works one.
func claim(o options) error {
	_, err := call(o, "graph_complete", withPR(map[string]any{"workItem": o.item}))
	return err
}

// withPR adds the pull request the session works, if any, to args.
func withPR(args map[string]any) map[string]any {
	if pr, err := strconv.Atoi(os.Getenv("THE_LOOP_PR")); err == nil && pr > 0 {
		args["pr"], args["prRepo"] = pr, os.Getenv("THE_LOOP_PR_REPO")
	}
	return args
}

// call calls one tool through the server the MCP config names and returns
// its text; a tool error fails the run.
func call(o options, tool string, args map[string]any) (string, error) {
	c, err := connect(o)
	if err != nil {
		return "", err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	out := text(res)
	emit(map[string]any{"type": "user", "tool": tool, "claim": map[string]any{"isError": res.IsError, "text": out}})
	if res.IsError {
		return out, fmt.Errorf("%s refused: %s", tool, out)
	}
	return out, nil
}
