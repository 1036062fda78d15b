// Package continuity keeps one live record of a work session so a later
// session (or another agent) can pick the work up where it stopped.
//
// The record lives in the repository under .handoff/continuity/ as three
// markdown files: notes.md (an append-only, timestamped log of decisions,
// discoveries and state changes), graph.md (task, decision and blocker nodes
// joined by dependency, sequence and resolution edges) and death-point.md (the
// single place that says where the session stopped and what comes next).
// Portable briefs are written under .handoff/handoffs/. Nothing under
// .handoff/ is ever staged: every write first proves the directory is
// git-ignored, adding it to the repository-local exclude file when needed.
//
// The CLI (the-loop continuity …) and the MCP tools call the same methods on
// *Set, and every result is a JSON-tagged struct so both surfaces return the
// same data.
package continuity
