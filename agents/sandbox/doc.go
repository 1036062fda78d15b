// Package sandbox confines an agent session: the policy of what it may
// read and write, the layers this host offers (a dedicated account, a
// private PID namespace with a fresh /proc, Landlock, no_new_privs), and
// the launcher the poller re-executes (`the-loop sandbox-exec`) to put a
// harness inside them.
//
// The launcher runs as PID 1 of the session's own PID namespace: it mounts
// a fresh /proc, restricts itself with Landlock (read-only system files;
// read-write only the session's working tree, its private home and temp
// directory, and what the policy names), sets no_new_privs, starts the
// harness under the session's account and reaps every process until the
// harness ends. When it exits the kernel kills whatever is left in the
// namespace, so nothing a session starts outlives it.
package sandbox
