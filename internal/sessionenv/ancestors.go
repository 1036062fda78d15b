package sessionenv

import (
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 64

// Session returns the session getenv names (ok when ID is set), without
// looking at ancestors: for a caller whose environment is not the
// process's own.
func Session(getenv func(string) string) (id string, ok bool) {
	id = getenv(ID)
	return id, id != ""
}

// SessionOfProcess returns the session this process runs in: ID as getenv
// reads it, else ID in the environment of the nearest ancestor process
// whose environment this process can read (/proc/<pid>/environ). An agent
// can unset its own variable (`env -u THE_LOOP_SESSION …`) but not its
// parents'. Without /proc only getenv is read.
func SessionOfProcess(getenv func(string) string) (id string, ok bool) {
	return sessionOf(getenv, os.Getppid(), os.DirFS("/proc"))
}

func sessionOf(getenv func(string) string, pid int, proc fs.FS) (string, bool) {
	if id, ok := Session(getenv); ok {
		return id, true
	}
	for range maxAncestors {
		if pid <= 1 {
			return "", false
		}
		if env, err := fs.ReadFile(proc, strconv.Itoa(pid)+"/environ"); err == nil {
			for _, kv := range bytes.Split(env, []byte{0}) {
				if id, ok := bytes.CutPrefix(kv, []byte(ID+"=")); ok && len(id) > 0 {
					return string(id), true
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
