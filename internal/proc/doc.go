// Package proc is the one way the-loop runs child processes: harness
// sessions, critics, the repository's test commands and git.
//
// Every child gets an environment built from an explicit allow-list
// (BuildEnv), never the parent's — except a repository's test command,
// which inherits the parent's variables minus every secret
// (EnvSpec.Inherit); its argv is executed directly, never
// through a shell; it runs in its own process group, so a timeout, a
// cancellation or Stop ends the whole group and no grandchild is left
// holding the child's output open. Run captures bounded output for short
// commands; Start supervises a long-running one whose output goes to files.
package proc
