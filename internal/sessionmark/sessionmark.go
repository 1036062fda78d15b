// Package sessionmark is the one definition of "this process runs inside an
// agent session the loop launched": the variable every session's
// environment carries, and how a process finds it — in its own
// environment, or in an ancestor's, which an agent cannot unset.
package sessionmark

import (
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Var is set in every session's environment to its session id.
const Var = "THE_LOOP_SESSION"

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 64

// Inside reports the session this process runs in: Var as getenv reads
// it, else Var in the environment of the nearest ancestor process whose
// environment this process can read (/proc/<pid>/environ). An agent can
// unset its own variable (`env -u THE_LOOP_SESSION …`) but not its
// parents'. Outside Linux only getenv is read.
func Inside(getenv func(string) string) (string, bool) {
	return inside(getenv, os.Getppid(), os.DirFS("/proc"))
}

// Named reports the session getenv names, without looking at ancestors
// (for a caller whose environment is not the process's own).
func Named(getenv func(string) string) (string, bool) {
	id := strings.TrimSpace(getenv(Var))
	return id, id != ""
}

func inside(getenv func(string) string, pid int, proc fs.FS) (string, bool) {
	if id, ok := Named(getenv); ok {
		return id, true
	}
	for range maxAncestors {
		if pid <= 1 {
			return "", false
		}
		if env, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/environ"); err == nil {
			for _, kv := range bytes.Split(env, []byte{0}) {
				if id, ok := bytes.CutPrefix(kv, []byte(Var+"=")); ok && len(bytes.TrimSpace(id)) > 0 {
					return string(bytes.TrimSpace(id)), true
				}
			}
		}
		pid = parentOf(proc, pid)
	}
	return "", false
}

// parentOf reads pid's parent from /proc/<pid>/stat (0 when it cannot).
// The command name, field 2, is in parentheses and may hold spaces and
// parentheses itself: the fields after its last ')' are the state and the
// parent's id.
func parentOf(proc fs.FS, pid int) int {
	stat, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0
	}
	return ppid
}
