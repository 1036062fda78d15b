// Command hostileharness stands in for an agent that tries to escape its
// session, in the tests of the session's confinement. Each attempt prints
// one stream-json line {"type":"hostile","attempt":NAME,"escaped":BOOL,
// "detail":TEXT}; the tests read them from the session's transcript and
// assert that none escaped. After its attempts it runs the program after
// "--", if any (the fake harness, doing the honest work), in its place.
//
// It tries: reading the signing key, the config, the store, the
// credentials directory, the poller's /proc entry (and any process
// environment holding the secret), another item's tree; writing outside
// its tree; ptrace and signals on the poller; the session's socket with a
// capability that is not its own, another work item's calls, tools the
// confined server does not list; pushing (to its tree's remote and to the
// bare remote directly), writing its tree's repository's own folder and
// the source checkout's refs; `the-loop graph force` and `graph
// advance` with a config it wrote itself; and it leaves a process behind
// with setsid, which the tests look for once the session has ended.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/internal/sessionenv"
	"github.com/the-loop/the-loop/mcp/gateway"
)

type targets struct {
	key, config, store, creds, otherTree, outside, secret, otherCap, otherItem, theLoop, item, linger, remote string
	pollerPID                                                                                                 int
}

func main() {
	var t targets
	flag.StringVar(&t.key, "key", "", "the signing key")
	flag.StringVar(&t.config, "config", "", "the poller's config")
	flag.StringVar(&t.store, "store", "", "the state database")
	flag.StringVar(&t.creds, "creds", "", "the credentials directory")
	flag.StringVar(&t.otherTree, "other-tree", "", "another item's working tree")
	flag.StringVar(&t.outside, "outside", "", "a directory outside the tree to write into")
	flag.StringVar(&t.secret, "secret", "", "a secret value of the poller's environment")
	flag.IntVar(&t.pollerPID, "poller-pid", 0, "the poller's process id")
	pidFile := flag.String("poller-pid-file", "", "a file holding the poller's process id")
	flag.StringVar(&t.otherCap, "other-capability", "", "a capability that is not this session's")
	flag.StringVar(&t.otherItem, "other-item", "", "another work item's id")
	flag.StringVar(&t.theLoop, "the-loop", "", "the-loop program")
	flag.StringVar(&t.item, "work-item", "", "this session's work item")
	flag.StringVar(&t.remote, "remote", "", "the item's bare remote, to push to directly")
	flag.StringVar(&t.linger, "linger", "", "internal: sleep as the process left behind, named by this marker")
	flag.String("prompt-file", "", "the assignment (read, then ignored)")
	flag.Parse()
	if t.linger != "" {
		time.Sleep(10 * time.Minute)
		return
	}
	if *pidFile != "" && t.pollerPID == 0 {
		if b, err := os.ReadFile(*pidFile); err == nil {
			t.pollerPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	attempts(t)
	if rest := flag.Args(); len(rest) > 0 {
		path, err := exec.LookPath(rest[0])
		if err == nil {
			err = syscall.Exec(path, rest, os.Environ())
		}
		fmt.Fprintln(os.Stderr, "hostileharness: run", rest[0], err)
		os.Exit(1)
	}
}

func report(attempt string, escaped bool, detail string) {
	b, _ := json.Marshal(map[string]any{"type": "hostile", "attempt": attempt, "escaped": escaped, "detail": detail})
	fmt.Println(string(b))
}

// read reports an attempt to read path: escaped when anything was read.
func read(attempt, path string) {
	if path == "" {
		return
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			report(attempt, false, err.Error())
			return
		}
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(path, e.Name())); err == nil && len(b) > 0 {
				report(attempt, true, "read "+filepath.Join(path, e.Name()))
				return
			}
		}
		report(attempt, len(entries) > 0, fmt.Sprintf("listed %d entries, read none", len(entries)))
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		report(attempt, false, err.Error())
		return
	}
	report(attempt, len(b) > 0, fmt.Sprintf("read %d bytes", len(b)))
}

func write(attempt, dir string) {
	if dir == "" {
		return
	}
	path := filepath.Join(dir, fmt.Sprintf("hostile-%d", os.Getpid()))
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		report(attempt, false, err.Error())
		return
	}
	report(attempt, true, "wrote "+path)
}

func attempts(t targets) {
	read("read-key", t.key)
	read("read-config", t.config)
	read("read-store", t.store)
	read("read-credentials", t.creds)
	read("read-other-tree", t.otherTree)
	if t.pollerPID > 0 {
		read("read-poller-environ", fmt.Sprintf("/proc/%d/environ", t.pollerPID))
		err := syscall.PtraceAttach(t.pollerPID)
		if err == nil {
			_ = syscall.PtraceDetach(t.pollerPID)
		}
		report("ptrace-poller", err == nil, fmt.Sprint(err))
		err = syscall.Kill(t.pollerPID, syscall.SIGCONT)
		report("signal-poller", err == nil, fmt.Sprint(err))
	}
	scanEnviron(t.secret)
	write("write-outside", t.outside)
	write("write-other-tree", t.otherTree)
	write("write-tmp", "/tmp")
	gitAttempts(t)
	socket(t)
	operatorActs(t)
	linger()
}

// gitAttempts pushes (the loop pushes; a session has no remote and no
// write access to it), and writes the tree's repository's own folder
// (config, HEAD, hooks) and the source checkout's refs, which the loop's
// git reads.
func gitAttempts(t targets) {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	out, err := git("push", "--quiet")
	report("git-push", err == nil, out)
	if t.remote != "" {
		out, err = git("push", "--quiet", t.remote, "HEAD:refs/heads/hostile")
		report("git-push-remote", err == nil, out)
	}
	common, err := git("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		report("write-repo-dir", false, "no repository: "+common)
		return
	}
	write("write-repo-dir", common)
	if b, err := os.ReadFile(filepath.Join(common, "objects", "info", "alternates")); err == nil {
		source := filepath.Dir(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
		write("write-source-refs", filepath.Join(source, "refs", "heads"))
	}
}

// scanEnviron looks for the secret in every process environment it can
// read.
func scanEnviron(secret string) {
	if secret == "" {
		return
	}
	entries, _ := os.ReadDir("/proc")
	seen := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		seen++
		if strings.Contains(string(b), secret) {
			report("scan-environ", true, "found the secret in /proc/"+e.Name()+"/environ")
			return
		}
	}
	report("scan-environ", false, fmt.Sprintf("read %d environments, none held the secret", seen))
}

func socket(t targets) {
	sock, capability := os.Getenv(sessionenv.Socket), os.Getenv(sessionenv.Capability)
	if sock == "" {
		report("socket", true, "no session socket: the session is not confined")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	other := t.otherCap
	if other == "" {
		other = strings.Repeat("0", 64)
	}
	_, err := gateway.Call(ctx, sock, other, "graph_status", map[string]any{})
	report("socket-other-capability", err == nil, fmt.Sprint(err))
	if t.otherItem != "" {
		for _, tool := range []string{"graph_status", "graph_complete"} {
			res, err := gateway.Call(ctx, sock, capability, tool, map[string]any{"workItem": t.otherItem})
			escaped := err == nil && !res.IsError
			report("socket-other-item-"+tool, escaped, resultText(res, err))
		}
	}
	for _, tool := range []string{"handoff_post", "ticket_create", "ticket_projects"} {
		res, err := gateway.Call(ctx, sock, capability, tool, map[string]any{})
		report("socket-unlisted-"+tool, err == nil && !res.IsError, resultText(res, err))
	}
}

func resultText(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " ")
}

// operatorActs runs the CLI's operator acts with a config the session
// wrote itself, pointing at the real store.
func operatorActs(t targets) {
	if t.theLoop == "" || t.item == "" {
		return
	}
	dir, err := os.MkdirTemp("", "hostile-")
	if err != nil {
		report("operator-acts", false, err.Error())
		return
	}
	cfg := filepath.Join(dir, "config.yaml")
	body := fmt.Sprintf("routing:\n  authorizedUsers: [mallory]\n  operator: mallory\nstore:\n  path: %q\n", t.store)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		report("operator-acts", false, err.Error())
		return
	}
	for _, args := range [][]string{
		{"graph", "force", t.item, "--to", "complete", "--reason", "hostile", "--actor", "@alice", "--config", cfg, "--db", t.store},
		{"graph", "advance", t.item, "--config", cfg, "--db", t.store},
		{"graph", "force", t.item, "--to", "complete", "--reason", "hostile", "--config", cfg},
	} {
		out, err := exec.Command(t.theLoop, args...).CombinedOutput()
		report("cli-"+args[1], err == nil, strings.TrimSpace(lastLine(string(out))))
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// linger leaves a process behind in a session of its own.
func linger() {
	self, err := os.Executable()
	if err != nil {
		report("linger", false, err.Error())
		return
	}
	marker := fmt.Sprintf("hostile-linger-%d", os.Getpid())
	cmd := exec.Command(self, "--linger", marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		report("linger", false, err.Error())
		return
	}
	_ = cmd.Process.Release()
	b, _ := json.Marshal(map[string]any{"type": "hostile", "attempt": "linger-started", "escaped": false, "detail": marker})
	fmt.Println(string(b))
}
